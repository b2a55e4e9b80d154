import type pg from "pg";
import { acceptWithinTransaction, type PrepareOptions } from "@sms/message-acceptance";
import { classifyKeywordFamily, type KeywordFamily } from "./keywords";
import { applyOptOutKeyword, senderNumber } from "./opt-out";
import { getSuppression } from "./store";

/** What an account's auto-reply did for one inbound keyword. */
export type AutoReplyOutcome =
  | { action: "sent"; messageId: string }
  /**
   * not_a_keyword, unassigned, off (no text for the family), not_a_number (an alphanumeric sender),
   * suppressed, or the acceptance's refusal (INSUFFICIENT_CREDITS, ACCOUNT_NOT_ACTIVE, COUNTRY_NOT_ALLOWED, …).
   */
  | { action: "none"; reason: string };

const COLUMN: Record<KeywordFamily, string> = {
  stop: "auto_reply_stop",
  start: "auto_reply_start",
  help: "auto_reply_help",
};

/** Marks an auto-reply among the account's messages (client_ref, echoed in the API and webhooks). */
export const autoReplyRef = (family: KeywordFamily) => `auto-reply:${family}`;

/**
 * Sends the account's auto-reply to a keyword (docs/api.md#keyword-auto-replies), in the caller's
 * transaction, after the keyword changed the suppression list: from the number that received it,
 * to the sender, as an ordinary message of the account (charged; not sent when the balance does not
 * cover it). Never to a number on the account's list, except the STOP confirmation itself.
 */
export async function sendKeywordAutoReply(
  client: pg.PoolClient,
  message: { accountId: string | null; from: string; to: string; text: string },
  options: PrepareOptions,
): Promise<AutoReplyOutcome> {
  const family = classifyKeywordFamily(message.text);
  if (!family) return { action: "none", reason: "not_a_keyword" };
  if (!message.accountId) return { action: "none", reason: "unassigned" };
  const { rows } = await client.query<{ text: string | null; allowed_countries: string[] }>(
    `SELECT ${COLUMN[family]} AS text, allowed_countries FROM accounts WHERE id = $1`,
    [message.accountId],
  );
  const text = rows[0]?.text;
  if (!text) return { action: "none", reason: "off" };
  const number = senderNumber(message.from);
  if (!number) return { action: "none", reason: "not_a_number" };
  if (family !== "stop") {
    if (await getSuppression(client, message.accountId, number))
      return { action: "none", reason: "suppressed" };
  }
  const accepted = await acceptWithinTransaction(
    client,
    { id: message.accountId, allowedCountries: rows[0]!.allowed_countries },
    { to: number, message: text, senderId: message.to, clientRef: autoReplyRef(family) },
    options,
  );
  if (!accepted.message) return { action: "none", reason: accepted.refusal ?? "refused" };
  return { action: "sent", messageId: accepted.message.id };
}

/**
 * The inbound path's hook (@sms/carrier-receipts InboundHook): a STOP or START changes the account's list,
 * then any keyword the account set an auto-reply for is answered; both in the storing transaction.
 */
export function keywordsOnInbound(options: PrepareOptions) {
  return async (
    client: pg.PoolClient,
    message: { accountId: string | null; from: string; to: string; text: string },
  ): Promise<void> => {
    if (!message.accountId) return;
    await applyOptOutKeyword(client, { ...message, accountId: message.accountId });
    await sendKeywordAutoReply(client, message, options);
  };
}
