import type pg from "pg";
import { applyTransition } from "@sms/message-state";
import { isFinalReceiptState, type ReceiptState } from "@sms/smpp";
import { describeReceiptFailure, isFailedReceiptState } from "./error-codes";

/** What a receipt did, as carrier_receipts.outcome records it. */
export type ReceiptOutcome = "applied" | "ignored" | "unmatched";

/** A receipt's effect before it is recorded. */
export interface Resolution {
  outcome: ReceiptOutcome;
  messageId?: string;
  seq?: number;
  /** The message transition it made, if any. */
  transition?: { to: "delivered" | "failed"; sequence: number };
}

/** The parts of a receipt that decide its effect. */
export interface ReceiptFacts {
  carrierId: string;
  /** Forms of the carrier's id to look the segment up by (carrierIdForms). */
  forms: readonly string[];
  /** The form the receipt quoted: preferred when several segments match. */
  quotedId: string;
  state: ReceiptState;
  /** The carrier's `err:` value. */
  errorCode?: string | null;
  /** When the carrier says it happened; clamped to [submitted_at, now]. */
  doneAt?: Date | null;
}

// Among segments with one of the forms: the exact form first, then one still waiting
// for its receipt, then the newest (carriers recycle ids after a while).
const FIND_SEGMENT = `
SELECT message_id, seq FROM message_segments
WHERE carrier_id = $1 AND carrier_message_id = ANY($2::text[])
ORDER BY (carrier_message_id = $3) DESC, (status IN ('delivered', 'failed')) ASC, submitted_at DESC NULLS LAST
LIMIT 1`;

// Locked before the segment is touched: receipts for the other segments of the same
// message queue here, so each one counts the delivered segments after the previous
// one committed and exactly one of them sees "all delivered" (DESIGN §4).
const LOCK_MESSAGE = "SELECT status, segment_count FROM messages WHERE id = $1 FOR UPDATE";

// The status guard makes a duplicate that raced past the lookup change nothing. The done
// time is the carrier's, kept within [submitted_at, now()]: receipt dates have minute
// precision and carriers rarely say their time zone.
const FINISH_SEGMENT = `
WITH upd AS (
  UPDATE message_segments SET
    status = $3::"SegmentStatus",
    error_code = $4::text,
    done_at = GREATEST(LEAST($5::timestamptz, now()), submitted_at)
  WHERE message_id = $1 AND seq = $2 AND status NOT IN ('delivered', 'failed')
  RETURNING done_at
)
SELECT (SELECT done_at FROM upd) AS done_at,
       (SELECT count(*) FROM message_segments
         WHERE message_id = $1 AND seq <> $2 AND status = 'delivered')::int AS others_delivered`;

/**
 * Applies a receipt's facts to its segment and, when that settles the message, to the
 * message (via applyTransition), in the caller's transaction. The caller holds the
 * advisory locks of the id's forms. Writes nothing when the outcome is not `applied`.
 */
export async function resolveReceipt(client: pg.PoolClient, facts: ReceiptFacts): Promise<Resolution> {
  const found = await client.query<{ message_id: string; seq: number }>({
    name: "receipts-find-segment",
    text: FIND_SEGMENT,
    values: [facts.carrierId, facts.forms, facts.quotedId],
  });
  const segment = found.rows[0];
  // A non-final receipt (accepted, enroute, unknown) never changes anything: it is not
  // kept waiting for its segment either.
  if (!segment) return { outcome: isFinalReceiptState(facts.state) ? "unmatched" : "ignored" };
  const where = { messageId: segment.message_id, seq: segment.seq };
  if (!isFinalReceiptState(facts.state)) return { outcome: "ignored", ...where };

  const message = await client.query<{ status: string; segment_count: number }>({
    name: "receipts-lock-message",
    text: LOCK_MESSAGE,
    values: [where.messageId],
  });
  const failure = isFailedReceiptState(facts.state)
    ? describeReceiptFailure(facts.state, facts.errorCode)
    : undefined;
  const finished = await client.query<{ done_at: Date | null; others_delivered: number }>({
    name: "receipts-finish-segment",
    text: FINISH_SEGMENT,
    values: [
      where.messageId,
      where.seq,
      failure ? "failed" : "delivered",
      failure?.errorCode ?? null,
      facts.doneAt ?? null,
    ],
  });
  const { done_at: doneAt, others_delivered: othersDelivered } = finished.rows[0]!;
  if (!doneAt) return { outcome: "ignored", ...where }; // already delivered or failed: a duplicate or late receipt

  const status = message.rows[0]?.status;
  const segmentCount = message.rows[0]?.segment_count ?? 1;
  const to = failure ? "failed" : othersDelivered + 1 >= segmentCount ? "delivered" : undefined;
  if (!to || status === "delivered" || status === "failed") return { outcome: "applied", ...where };
  const result = await applyTransition(client, {
    messageId: where.messageId,
    to,
    at: doneAt,
    errorCode: failure?.errorCode,
    errorMessage: failure?.errorMessage,
  });
  return result.applied
    ? { outcome: "applied", ...where, transition: { to, sequence: result.sequence } }
    : { outcome: "applied", ...where };
}
