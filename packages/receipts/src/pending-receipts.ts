import type pg from "pg";
import type { ReceiptState } from "@sms/smpp";
import { carrierIdForms } from "./id-forms";
import { lockCarrierMessageIds } from "./lock";
import { resolveReceipt } from "./resolve-receipt";
import type { ReceiptResult } from "./apply-receipt";
import { inTransaction } from "./transaction";

interface UnmatchedRow {
  id: string;
  carrier_id: string;
  carrier_message_id: string;
  state: ReceiptState;
  error_code: string | null;
  received_at: Date;
}

const UNMATCHED_FOR_ID = `
SELECT id::text, carrier_id, carrier_message_id, state, error_code, received_at FROM carrier_receipts
WHERE carrier_id = $1 AND carrier_message_id = ANY($2::text[]) AND outcome = 'unmatched'
ORDER BY id
FOR UPDATE`;

const RECORD_OUTCOME = `
UPDATE carrier_receipts SET outcome = $2::"ReceiptOutcome", message_id = $3, seq = $4 WHERE id = $1::bigint`;

/**
 * Applies the receipts that arrived before the submit response of (carrierId,
 * carrierMessageId): the dispatcher calls it inside the transaction in which it took
 * lockCarrierMessageId for that id and set the segment's carrier_message_id, just
 * before COMMIT. Each one becomes applied (the first final one) or ignored (duplicates);
 * returns what each did.
 */
export async function matchPendingReceipts(
  client: pg.PoolClient,
  segment: { carrierId: string; carrierMessageId: string },
): Promise<ReceiptResult[]> {
  const forms = carrierIdForms(segment.carrierMessageId);
  const { rows } = await client.query<UnmatchedRow>({
    name: "receipts-unmatched-for-id",
    text: UNMATCHED_FOR_ID,
    values: [segment.carrierId, forms],
  });
  const results: ReceiptResult[] = [];
  for (const row of rows) {
    const result = await settleUnmatched(client, row, forms);
    if (result) results.push(result);
  }
  return results;
}

/** Options of sweepUnmatched. */
export interface SweepOptions {
  /** Leave receipts younger than this to matchPendingReceipts (the normal path). */
  olderThanMs: number;
  /** Give up on receipts older than this (their segment never got that id). @defaultValue 3 days */
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
SELECT id::text, carrier_id, carrier_message_id FROM carrier_receipts
WHERE outcome = 'unmatched'
  AND received_at < now() - make_interval(secs => $1::double precision / 1000)
  AND received_at > now() - make_interval(secs => $2::double precision / 1000)
ORDER BY received_at
LIMIT $3`;

const UNMATCHED_BY_ID = `
SELECT id::text, carrier_id, carrier_message_id, state, error_code, received_at FROM carrier_receipts
WHERE id = $1::bigint AND outcome = 'unmatched'
FOR UPDATE`;

/**
 * The safety net under matchPendingReceipts: retries unmatched receipts older than
 * `olderThanMs`, each in its own transaction under the advisory locks of its id's
 * forms. Safe on several replicas at once (the row is re-read locked and skipped when
 * someone else settled it).
 */
export async function sweepUnmatched(pool: pg.Pool, options: SweepOptions): Promise<SweepResult> {
  const maxAgeMs = options.maxAgeMs ?? 3 * 24 * 3600 * 1000;
  const { rows } = await pool.query<Pick<UnmatchedRow, "id" | "carrier_id" | "carrier_message_id">>({
    name: "receipts-sweepable",
    text: SWEEPABLE,
    values: [options.olderThanMs, maxAgeMs, options.limit ?? 500],
  });
  const result: SweepResult = { examined: rows.length, applied: 0, ignored: 0 };
  for (const candidate of rows) {
    const forms = carrierIdForms(candidate.carrier_message_id);
    const settled = await inTransaction(pool, async (client) => {
      await lockCarrierMessageIds(client, candidate.carrier_id, forms);
      const locked = await client.query<UnmatchedRow>({
        name: "receipts-unmatched-by-id",
        text: UNMATCHED_BY_ID,
        values: [candidate.id],
      });
      const row = locked.rows[0];
      return row ? settleUnmatched(client, row, forms) : undefined;
    });
    if (settled?.outcome === "applied") result.applied += 1;
    else if (settled?.outcome === "ignored") result.ignored += 1;
  }
  return result;
}

/** Resolves one unmatched receipt (its row locked) and records the outcome; undefined while still unmatched. */
async function settleUnmatched(
  client: pg.PoolClient,
  row: UnmatchedRow,
  forms: readonly string[],
): Promise<ReceiptResult | undefined> {
  const resolution = await resolveReceipt(client, {
    carrierId: row.carrier_id,
    forms,
    quotedId: row.carrier_message_id,
    state: row.state,
    errorCode: row.error_code,
    // carrier_receipts keeps no done date; the carrier was done by the time it told us.
    doneAt: row.received_at,
  });
  if (resolution.outcome === "unmatched") return undefined;
  await client.query({
    name: "receipts-record-outcome",
    text: RECORD_OUTCOME,
    values: [row.id, resolution.outcome, resolution.messageId ?? null, resolution.seq ?? null],
  });
  return { ...resolution, receiptId: row.id };
}
