import type { Queryable } from "@sms/db";
import { normalizePhone } from "@sms/message-acceptance";
import { classifyOptOutKeyword, type OptOutKeyword } from "./keywords";
import { addSuppression, removeSuppression } from "./store";

/** What an inbound text did to the account's suppression list. */
export interface OptOutOutcome {
  /** The keyword family the whole text matched; null for an ordinary message. */
  keyword: OptOutKeyword | null;
  /**
   * added / already_suppressed (STOP), removed / not_suppressed (START), or none: not a
   * keyword, or a sender that is not a phone number (an alphanumeric sender cannot be sent to).
   */
  action: "added" | "already_suppressed" | "removed" | "not_suppressed" | "none";
  /** The sender in E.164 when it is a phone number. */
  number: string | null;
}

/**
 * For the inbound path: applies a STOP or START keyword of an inbound message to the
 * account that owns `to` (docs/api.md#suppressions). `from` may come without its + (carriers
 * often send international numbers bare). `db` is a pool, or the inbound path's own
 * transaction client so the message and its opt-out commit together.
 */
export async function applyOptOutKeyword(
  db: Queryable,
  message: { accountId: string; from: string; to: string; text: string },
): Promise<OptOutOutcome> {
  const keyword = classifyOptOutKeyword(message.text);
  if (!keyword) return { keyword, action: "none", number: null };
  const number = senderNumber(message.from);
  if (!number) return { keyword, action: "none", number: null };
  if (keyword === "stop") {
    const { added } = await addSuppression(db, {
      accountId: message.accountId,
      number,
      source: "keyword",
      replyNumber: message.to,
    });
    return { keyword, action: added ? "added" : "already_suppressed", number };
  }
  const removed = await removeSuppression(db, message.accountId, number);
  return { keyword, action: removed ? "removed" : "not_suppressed", number };
}

/**
 * The E.164 form of an inbound sender, or null when it is not a phone number (an alphanumeric
 * sender). A number in E.164 shape that libphonenumber's plan data does not know yet is kept as
 * given: it did text us, and a STOP must not be lost to a plan update we have not shipped.
 */
export function senderNumber(from: string): string | null {
  const compact = from.trim();
  for (const candidate of compact.startsWith("+") ? [compact] : [`+${compact}`, compact]) {
    try {
      return normalizePhone(candidate, "from");
    } catch {
      // not this spelling
    }
  }
  const digits = compact.replace(/^\+/, "");
  return /^[1-9]\d{6,14}$/.test(digits) ? `+${digits}` : null;
}
