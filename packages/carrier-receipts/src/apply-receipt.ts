import type pg from "pg";
import type { ReceiptState } from "@sms/smpp";
import { receiptKeyOf, receiptLockKey } from "./receipt-keys";
import { resolveReceipts, type ReceiptOutcome, type Resolution } from "./resolve-receipts";
import { inTransaction, retryOnDeadlock } from "./transaction";

/** One delivery receipt as a carrier sent it (over SMPP or HTTP). */
export interface ReceiptInput {
  carrierId: string;
  /** The id as the receipt quotes it; stored as such. */
  carrierMessageId: string;
  state: ReceiptState;
  /** The carrier's `err:` value, as received. */
  errorCode?: string | null;
  /** The receipt's done date as the carrier wrote it: kept beside ours (carrier_done_at). */
  doneAt?: Date | null;
  /**
   * The done date has seconds: it is then the time recorded. Otherwise (SMPP 3.4 appendix B
   * dates stop at the minute) the time recorded is when we received the receipt.
   */
  doneAtHasSeconds?: boolean;
  /** What was received, for the record (carrier_receipts.raw). */
  raw?: unknown;
  /** The process that stored it (carrier_receipts.received_by), e.g. host:pid. */
  receivedBy?: string;
}

/** What applying one receipt did. */
export interface ReceiptResult extends Resolution {
  /** The carrier_receipts row. */
  receiptId: string;
}

// Rows come back in insertion order, which is the ORDER BY of the SELECT feeding them.
// `raw` is kept only for a receipt that did not apply (ignored, or unmatched until its submit
// is recorded), the ones support looks into: an applied receipt's facts are its columns and its
// segment's, and its raw fields cost about 240 bytes a message (docs/decisions.md#receipt-raw).
const INSERT_RECEIPTS = `
INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, error_code, outcome, message_id, seq, raw,
                              received_by, receipt_key, carrier_done_at, done_at)
SELECT carrier_id, carrier_message_id, state, error_code, outcome::"ReceiptOutcome", message_id, seq,
       CASE WHEN outcome <> 'applied' THEN raw::jsonb END,
       received_by, receipt_key_of(carrier_message_id), carrier_done_at, COALESCE(done_at, now())
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::text[],
            $10::timestamptz[], $11::timestamptz[])
  WITH ORDINALITY AS t(carrier_id, carrier_message_id, state, error_code, outcome, message_id, seq, raw, received_by,
                       carrier_done_at, done_at, n)
ORDER BY n
RETURNING id::text`;

/**
 * Applies one delivery receipt in ONE transaction: takes the advisory lock of its receipt
 * key (the dispatcher takes the same key when it records the submit response),
 * finds the segment, settles it and maybe its message (docs/messages.md#receipts), and records the
 * receipt in carrier_receipts as applied, ignored (its segment is already final, or it is
 * not final) or unmatched (no segment awaiting a receipt has this key yet:
 * matchPendingReceipts or the sweep settles it later). Resolves once committed; throws (nothing committed) when the database fails.
 */
export async function applyReceipt(pool: pg.Pool, input: ReceiptInput): Promise<ReceiptResult> {
  const [result] = await applyReceipts(pool, [input]);
  return result!;
}

export type { ReceiptOutcome };

/**
 * Applies many receipts in ONE transaction (group commit: one WAL flush for the batch),
 * with the same locks and rules as applyReceipt, set-based: every receipt key of the
 * batch is taken first, in sorted order (as the dispatcher takes its own); then one
 * statement per step for the whole batch (resolveReceipts), and one insert of every
 * carrier_receipts row. Message rows are locked in id order, as every batch locks them.
 * A deadlock all the same (PostgreSQL aborts one side) is retried. All or nothing.
 */
export async function applyReceipts(
  pool: pg.Pool,
  inputs: readonly ReceiptInput[],
): Promise<ReceiptResult[]> {
  const prepared = inputs.map((input) => {
    const carrierMessageId = input.carrierMessageId.trim();
    if (!carrierMessageId) throw new Error("A receipt needs the carrier's message id.");
    // Ours unless the carrier's has seconds: appendix B dates would put 07:22:13 at 07:22:00.
    const doneAt = input.doneAtHasSeconds ? (input.doneAt ?? null) : null;
    return { input, carrierMessageId, key: receiptKeyOf(carrierMessageId)!, doneAt };
  });
  const keys = [...new Set(prepared.map((p) => receiptLockKey(p.input.carrierId, p.key)))].sort();
  return retryOnDeadlock(() =>
    inTransaction(pool, async (client) => {
      await client.query({
        name: "receipts-lock-batch",
        // The same key as lockCarrierMessageId: carrier || ':' || id.
        text: "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n",
        values: [keys],
      });
      const resolutions = await resolveReceipts(
        client,
        prepared.map(({ input, carrierMessageId, doneAt }) => ({
          carrierId: input.carrierId,
          quotedId: carrierMessageId,
          state: input.state,
          errorCode: input.errorCode,
          doneAt,
          carrierDoneAt: input.doneAt,
        })),
      );
      // Named, unlike the look-ups of pending-receipts.ts: an insert reads no partition, so
      // its cached plan cannot keep a scan chosen while a day was empty.
      const inserted = await client.query<{ id: string }>({
        name: "receipts-insert-batch",
        text: INSERT_RECEIPTS,
        values: [
          prepared.map((p) => p.input.carrierId),
          prepared.map((p) => p.carrierMessageId),
          prepared.map((p) => p.input.state),
          prepared.map((p) => p.input.errorCode ?? null),
          resolutions.map((r) => r.outcome),
          resolutions.map((r) => r.messageId ?? null),
          resolutions.map((r) => r.seq ?? null),
          prepared.map((p) => (p.input.raw === undefined ? null : JSON.stringify(p.input.raw))),
          prepared.map((p) => p.input.receivedBy ?? null),
          prepared.map((p) => p.input.doneAt ?? null),
          prepared.map((p) => p.doneAt),
        ],
      });
      return resolutions.map((resolution, i) => ({ ...resolution, receiptId: inserted.rows[i]!.id }));
    }),
  );
}
