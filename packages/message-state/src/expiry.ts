import { applyTransitions } from "./apply-transition";
import { dueByIdBound } from "./message-weeks";
import { inTransaction, type Queryable } from "./queryable";

/**
 * Messages not yet with a carrier (scheduled or queued) whose validity has ended, oldest end
 * first. The partial index messages_awaiting_expires_at_idx holds exactly these statuses, so a
 * pass reads the rows it fails and stops: its cost does not grow with the table. SKIP LOCKED:
 * replicas share the work, and a row a dispatcher is marking (FOR SHARE) waits for the next pass.
 */
export const OVERDUE_AWAITING = `
SELECT id, otp_id FROM messages
WHERE status IN ('scheduled', 'queued') AND expires_at <= now() AND id < $2
ORDER BY expires_at
LIMIT $1
FOR NO KEY UPDATE SKIP LOCKED`;

/**
 * `sent` messages whose validity plus the grace has ended without final receipts (a final
 * receipt would have moved them on), oldest first, through messages_sent_expires_at_idx.
 */
export const OVERDUE_SENT = `
SELECT id FROM messages
WHERE status = 'sent' AND expires_at <= now() - make_interval(secs => $2::double precision) AND id < $3
ORDER BY expires_at
LIMIT $1
FOR NO KEY UPDATE SKIP LOCKED`;

/** What an expired message is told (the otp-sweeper says the same of an OTP's SMS). */
const EXPIRED = {
  errorCode: "EXPIRED",
  errorMessage: "The validity period ended before the message reached a carrier.",
};
const OTP_EXPIRED = {
  errorCode: "OTP_EXPIRED",
  errorMessage: "The OTP expired before its SMS reached a carrier.",
};

/** Why a message failed when its validity ended before it reached a carrier: an OTP's SMS says so. */
export function expiryReason(otpId: string | null): { errorCode: string; errorMessage: string } {
  return otpId ? OTP_EXPIRED : EXPIRED;
}

export interface SweepResult {
  /** Messages the pass failed. */
  failed: number;
  /** Credits returned by the pass (messages that never reached a carrier). */
  refundedCredits: number;
}

/**
 * scheduled/queued → failed `EXPIRED` (`OTP_EXPIRED` for an OTP's SMS: its validity is the
 * code's) for at most `limit` messages whose validity has ended, in one transaction, through
 * the state machine: history, `message.failed` events and refunds (a message none of whose
 * segments reached a carrier gets its credits back; docs/messages.md#validity).
 */
export async function expireOverdue(db: Queryable, options: { limit?: number } = {}): Promise<SweepResult> {
  return inTransaction(db, async (client) => {
    // Unnamed, with the bound of the weeks due so far (dueByIdBound).
    const { rows } = await client.query<{ id: string; otp_id: string | null }>(OVERDUE_AWAITING, [
      options.limit ?? 1000,
      dueByIdBound(),
    ]);
    const at = new Date();
    const results = await applyTransitions(
      client,
      rows.map((row) => ({ messageId: row.id, to: "failed" as const, at, ...expiryReason(row.otp_id) })),
    );
    return summarize(results);
  });
}

/**
 * sent → failed `RECEIPT_TIMEOUT` for at most `limit` messages whose validity ended more than
 * `graceSeconds` ago with no final receipt (docs/messages.md#validity), in one transaction, through the state
 * machine. No credits come back: the carrier took every segment. A receipt that comes later is
 * recorded and changes nothing (failed is final).
 */
export async function timeOutReceipts(
  db: Queryable,
  options: { graceSeconds: number; limit?: number },
): Promise<SweepResult> {
  return inTransaction(db, async (client) => {
    const { rows } = await client.query<{ id: string }>(OVERDUE_SENT, [
      options.limit ?? 1000,
      options.graceSeconds,
      dueByIdBound(),
    ]);
    const at = new Date();
    const errorMessage = `No final delivery receipt came within the validity period plus ${describeSeconds(options.graceSeconds)}.`;
    const results = await applyTransitions(
      client,
      rows.map((row) => ({
        messageId: row.id,
        to: "failed" as const,
        at,
        errorCode: "RECEIPT_TIMEOUT",
        errorMessage,
      })),
    );
    return summarize(results);
  });
}

function summarize(results: Awaited<ReturnType<typeof applyTransitions>>): SweepResult {
  let failed = 0;
  let refundedCredits = 0;
  for (const result of results) {
    if (!result.applied) continue;
    failed++;
    refundedCredits += result.refundedCredits;
  }
  return { failed, refundedCredits };
}

function describeSeconds(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
