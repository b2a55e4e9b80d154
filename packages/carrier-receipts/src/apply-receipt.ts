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
  /**
   * Its carrier_receipts row; null when it applied at once: it is then recorded on its segment
   * alone (docs/decisions.md#applied-receipts).
   */
  receiptId: string | null;
}

// Only receipts that did not apply (ignored, or unmatched until their submit is recorded) are
// rows here, with what they said in full (`raw`): the ones support looks into. An applied
// receipt's facts are its segment's (status, error code, both done dates) and the message's
// history (docs/decisions.md#applied-receipts). Rows come back in insertion order, which is the
// ORDER BY of the SELECT feeding them.
const INSERT_RECEIPTS = `
INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, error_code, outcome, message_id, seq, raw,
                              received_by, receipt_key, carrier_done_at, done_at)
SELECT carrier_id, carrier_message_id, state, error_code, outcome::"ReceiptOutcome", message_id, seq, raw::jsonb,
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
 * statement per step for the whole batch (resolveReceipts), and one insert of the receipts
 * that did not apply (an applied one is its segment's columns: no row). Message rows are
 * locked in id order, as every batch locks them. A deadlock all the same (PostgreSQL aborts
 * one side) is retried. All or nothing.
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
      const kept = prepared.flatMap((p, i) =>
        resolutions[i]!.outcome === "applied" ? [] : [{ ...p, index: i, resolution: resolutions[i]! }],
      );
      const ids = kept.length > 0 ? await insertReceipts(client, kept) : [];
      const idOf = new Map(kept.map((k, i) => [k.index, ids[i]!]));
      return resolutions.map((resolution, i) => ({ ...resolution, receiptId: idOf.get(i) ?? null }));
    }),
  );
}

interface KeptReceipt {
  input: ReceiptInput;
  carrierMessageId: string;
  doneAt: Date | null;
  resolution: Resolution;
}

/** The receipts kept as rows, in one insert: their ids in the same order. */
async function insertReceipts(client: pg.PoolClient, kept: readonly KeptReceipt[]): Promise<string[]> {
  // Named, unlike the look-ups of pending-receipts.ts: an insert reads no partition, so
  // its cached plan cannot keep a scan chosen while a day was empty.
  const inserted = await client.query<{ id: string }>({
    name: "receipts-insert-batch",
    text: INSERT_RECEIPTS,
    values: [
      kept.map((k) => k.input.carrierId),
      kept.map((k) => k.carrierMessageId),
      kept.map((k) => k.input.state),
      kept.map((k) => k.input.errorCode ?? null),
      kept.map((k) => k.resolution.outcome),
      kept.map((k) => k.resolution.messageId ?? null),
      kept.map((k) => k.resolution.seq ?? null),
      kept.map((k) => (k.input.raw === undefined ? null : JSON.stringify(k.input.raw))),
      kept.map((k) => k.input.receivedBy ?? null),
      kept.map((k) => k.input.doneAt ?? null),
      kept.map((k) => k.doneAt),
    ],
  });
  return inserted.rows.map((row) => row.id);
}
