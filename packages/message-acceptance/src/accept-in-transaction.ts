import type pg from "pg";
import { ApiError } from "@sms/errors";
import { lockAccounts, writeDecided } from "./persist.sql";
import { prepareMessage, type MessageDraft, type PreparedMessage, type PrepareOptions } from "./prepare";

/**
 * Accepts one message the platform sends on an account's behalf (a keyword auto-reply) inside
 * the caller's open transaction: validated, charged and written with its history, events and
 * dispatch_outbox row exactly as a send is, so it is queued when that transaction commits (the
 * outbox relay hands it to the dispatcher). The sender is not checked against the account's list:
 * it is the platform's choice (the account's own inbound number). Returns null, writing nothing,
 * when the account is not active, its balance does not cover it, or the draft is not acceptable
 * (a destination outside its countries, …): the caller's transaction goes on.
 */
export async function acceptWithinTransaction(
  client: pg.PoolClient,
  account: { id: string; allowedCountries: readonly string[] },
  draft: MessageDraft,
  options: PrepareOptions,
): Promise<{ message: PreparedMessage | null; refusal: string | null }> {
  let message: PreparedMessage;
  try {
    message = prepareMessage(
      {
        id: account.id,
        senderIds: new Set([draft.senderId]),
        allowedCountries: new Set(account.allowedCountries),
      },
      draft,
      { source: "api", batchId: null, now: new Date() },
      options,
    );
  } catch (error) {
    if (error instanceof ApiError) return { message: null, refusal: error.code };
    throw error;
  }
  const locked = (await lockAccounts(client, [account.id])).get(account.id);
  if (locked === undefined) return { message: null, refusal: "ACCOUNT_NOT_ACTIVE" };
  const after = locked.balance - BigInt(message.credits);
  if (after < 0n) return { message: null, refusal: "INSUFFICIENT_CREDITS" };
  // Not counted against the day's quota: the platform sends it, not the account.
  await writeDecided(
    client,
    { messages: [message], batches: [], otps: [], smppSubmits: [] },
    new Map([[account.id, { balance: after, usedToday: null }]]),
  );
  return { message, refusal: null };
}
