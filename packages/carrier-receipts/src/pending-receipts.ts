import type pg from "pg";
import type { ReceiptState } from "@sms/smpp";
import { lockCarrierMessageId } from "./lock";
import { receiptKeyOf } from "./receipt-keys";
import { resolveReceipts } from "./resolve-receipts";
import type { ReceiptResult } from "./apply-receipt";
import { inTransaction } from "./transaction";

interface UnmatchedRow {
  id: string;
  carrier_id: string;
  carrier_message_id: string;
  state: ReceiptState;
  error_code: string | null;
  received_at: Date;
  carrier_done_at: Date | null;
  done_at: Date | null;
}

/**
 * How long an unmatched receipt waits for its segment before it is given up (the sweep's
 * default). It also bounds every look-up of unmatched receipts by their receive time, so that
 * PostgreSQL reads the few day partitions of carrier_receipts it can be in, not all of them.
 */
const UNMATCHED_WINDOW_MS = 3 * 24 * 3600 * 1000;

// The statements below look rows of carrier_receipts up, so they are sent unnamed and planned for
// each run (docs/decisions.md#partitions): a prepared statement's generic plan keeps the scan it
// chose for today's partition while that day was nearly empty, and the day fills up after. Their
// window starts at a timestamp passed in, not at now() less an interval: a value known when the
// statement is planned leaves the older days out of the plan (now() is known only when it runs),
// which makes planning several times cheaper with a month of days.
const UNMATCHED_COLUMNS =
  "id::text, carrier_id, carrier_message_id, state, error_code, received_at, carrier_done_at, done_at";

const UNMATCHED_FOR_KEYS = `
SELECT ${UNMATCHED_COLUMNS} FROM carrier_receipts
WHERE outcome = 'unmatched' AND (carrier_id, receipt_key) IN (SELECT * FROM unnest($1::text[], $2::text[]))
  AND received_at > $3::timestamptz
ORDER BY id
FOR UPDATE`;

const RECORD_OUTCOMES = `
UPDATE carrier_receipts AS r SET outcome = t.outcome::"ReceiptOutcome", message_id = t.message_id, seq = t.seq
FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[], $5::int[]) AS t(id, received_at, outcome, message_id, seq)
WHERE r.id = t.id AND r.received_at = t.received_at AND r.received_at >= $6::timestamptz`;

/** The start of a window of receive times that ends now. */
function receivedSince(windowMs: number): Date {
  return new Date(Date.now() - windowMs);
}

/** A segment the dispatcher just gave a carrier id: the receipt key it has by its carrier's form. */
export interface SubmittedSegment {
  carrierId: string;
  receiptKey: string;
}

/**
 * Applies the receipts that arrived before the submit response of a segment: the
 * dispatcher calls it inside the transaction in which it took lockCarrierMessageId for
 * (carrierId, receiptKey) and set the segment's carrier_message_id, just before COMMIT.
 * Only receipts received after the segment's submit started can take it. Each one becomes applied (the first final one) or ignored (duplicates);
 * returns what each did.
 */
export async function matchPendingReceipts(
  client: pg.PoolClient,
  segment: SubmittedSegment,
): Promise<ReceiptResult[]> {
  return matchPendingReceiptsFor(client, [segment]);
}

/**
 * matchPendingReceipts for many segments at once (one look-up, one resolveReceipts,
 * one update of the receipts' outcomes), in the caller's transaction under the locks
 * of every id. Returns what each settled receipt did, oldest receipt first.
 */
export async function matchPendingReceiptsFor(
  client: pg.PoolClient,
  segments: readonly SubmittedSegment[],
): Promise<ReceiptResult[]> {
  if (segments.length === 0) return [];
  const { rows } = await client.query<UnmatchedRow>({
    text: UNMATCHED_FOR_KEYS,
    values: [
      segments.map((s) => s.carrierId),
      segments.map((s) => s.receiptKey),
      receivedSince(UNMATCHED_WINDOW_MS),
    ],
  });
  return settleUnmatched(client, rows, false);
}

/** Options of sweepUnmatched. */
export interface SweepOptions {
  /** Leave receipts younger than this to matchPendingReceipts (the normal path). */
  olderThanMs: number;
  /** Give up on receipts older than this (their segment never got that id). @defaultValue UNMATCHED_WINDOW_MS, 3 days */
  maxAgeMs?: number;
  /** Most receipts examined per call. @defaultValue 500 */
  limit?: number;
}

/** Counts of one sweep. */
export interface SweepResult {
  examined: number;
  applied: number;
  ignored: number;
}

const SWEEPABLE = `
SELECT id::text, carrier_id, carrier_message_id, receipt_key, received_at FROM carrier_receipts
WHERE outcome = 'unmatched'
  AND received_at < now() - make_interval(secs => $1::double precision / 1000)
  AND received_at > $2::timestamptz
ORDER BY received_at
LIMIT $3`;

const UNMATCHED_BY_ID = `
SELECT ${UNMATCHED_COLUMNS} FROM carrier_receipts
WHERE id = $1::bigint AND received_at = $2::timestamptz AND outcome = 'unmatched'
FOR UPDATE`;

/**
 * The safety net under matchPendingReceipts: retries unmatched receipts older than
 * `olderThanMs` (by then their own submit response is recorded), each in its own
 * transaction under the advisory lock of its key. One that finds only a final segment
 * is then a duplicate and becomes ignored. Safe on several replicas at once (the row is re-read locked and skipped when
 * someone else settled it).
 */
export async function sweepUnmatched(pool: pg.Pool, options: SweepOptions): Promise<SweepResult> {
  const maxAgeMs = options.maxAgeMs ?? UNMATCHED_WINDOW_MS;
  const { rows } = await pool.query<
    Pick<UnmatchedRow, "id" | "carrier_id" | "carrier_message_id" | "received_at"> & {
      receipt_key: string | null;
    }
  >({
    text: SWEEPABLE,
    values: [options.olderThanMs, receivedSince(maxAgeMs), options.limit ?? 500],
  });
  const result: SweepResult = { examined: rows.length, applied: 0, ignored: 0 };
  for (const candidate of rows) {
    const key = candidate.receipt_key ?? receiptKeyOf(candidate.carrier_message_id) ?? "";
    const settled = await inTransaction(pool, async (client) => {
      await lockCarrierMessageId(client, candidate.carrier_id, key);
      const locked = await client.query<UnmatchedRow>({
        text: UNMATCHED_BY_ID,
        values: [candidate.id, candidate.received_at],
      });
      return settleUnmatched(client, locked.rows, true);
    });
    for (const { outcome } of settled)
      if (outcome === "applied" || outcome === "ignored") result[outcome] += 1;
  }
  return result;
}

/** Resolves unmatched receipts (their rows locked) and records the outcomes of those now settled. */
async function settleUnmatched(
  client: pg.PoolClient,
  receipts: readonly UnmatchedRow[],
  settleDuplicates: boolean,
): Promise<ReceiptResult[]> {
  const resolutions = await resolveReceipts(
    client,
    receipts.map((row) => ({
      carrierId: row.carrier_id,
      quotedId: row.carrier_message_id,
      state: row.state,
      errorCode: row.error_code,
      doneAt: row.done_at ?? row.received_at,
      carrierDoneAt: row.carrier_done_at,
      receivedAt: row.received_at,
      settleDuplicates,
    })),
  );
  const settled = receipts
    .map((row, i) => ({ result: { ...resolutions[i]!, receiptId: row.id }, receivedAt: row.received_at }))
    .filter(({ result }) => result.outcome !== "unmatched");
  if (settled.length > 0)
    await client.query({
      text: RECORD_OUTCOMES,
      values: [
        settled.map(({ result }) => result.receiptId),
        settled.map(({ receivedAt }) => receivedAt),
        settled.map(({ result }) => result.outcome),
        settled.map(({ result }) => result.messageId ?? null),
        settled.map(({ result }) => result.seq ?? null),
        // The oldest of them: the partitions before its day are not read.
        new Date(Math.min(...settled.map(({ receivedAt }) => receivedAt.getTime()))),
      ],
    });
  return settled.map(({ result }) => result);
}

/** The statements on carrier_receipts, for the test that checks which day partitions each reads. */
export const PENDING_RECEIPT_STATEMENTS = {
  UNMATCHED_FOR_KEYS,
  SWEEPABLE,
  UNMATCHED_BY_ID,
  RECORD_OUTCOMES,
} as const;
