import type pg from "pg";
import type { ReceiptState } from "@sms/smpp";
import { carrierIdForms } from "./id-forms";
import { resolveReceipt, type ReceiptOutcome, type Resolution } from "./resolve-receipt";
import { inTransaction } from "./transaction";

/** One delivery receipt as a carrier sent it (over SMPP or HTTP). */
export interface ReceiptInput {
  carrierId: string;
  /** The id as the receipt quotes it; stored as such. */
  carrierMessageId: string;
  /** Forms to look the segment up by and lock. @defaultValue carrierIdForms(carrierMessageId) */
  candidates?: readonly string[];
  state: ReceiptState;
  /** The carrier's `err:` value, as received. */
  errorCode?: string | null;
  /** The receipt's done date. @defaultValue the time it is applied */
  doneAt?: Date | null;
  /** What was received, for the record (carrier_receipts.raw). */
  raw?: unknown;
}

/** What applying one receipt did. */
export interface ReceiptResult extends Resolution {
  /** The carrier_receipts row. */
  receiptId: string;
}

const INSERT_RECEIPT = `
INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, error_code, outcome, message_id, seq, raw)
VALUES ($1, $2, $3, $4, $5::"ReceiptOutcome", $6, $7, $8::jsonb)
RETURNING id::text`;

/**
 * Applies one delivery receipt in ONE transaction: takes the advisory lock of every form
 * of the id (the dispatcher takes the same key when it records the submit response),
 * finds the segment, settles it and maybe its message (DESIGN §4), and records the
 * receipt in carrier_receipts as applied, ignored (duplicate, late or not final) or
 * unmatched (no segment has this id yet: matchPendingReceipts or the sweep applies it
 * later). Resolves once committed; throws (nothing committed) when the database fails.
 */
export async function applyReceipt(pool: pg.Pool, input: ReceiptInput): Promise<ReceiptResult> {
  const [result] = await applyReceipts(pool, [input]);
  return result!;
}

export type { ReceiptOutcome };

const DEADLOCK = "40P01";

/**
 * Applies many receipts in ONE transaction (group commit: one WAL flush for the batch),
 * with the same locks and rules as applyReceipt. Every advisory key of the batch is
 * taken first, in sorted order (as the dispatcher takes its own); receipts are then
 * applied ordered by the message they touch, so two batches lock message rows in one
 * order. A deadlock all the same (PostgreSQL aborts one side) is retried. All or nothing.
 */
export async function applyReceipts(
  pool: pg.Pool,
  inputs: readonly ReceiptInput[],
): Promise<ReceiptResult[]> {
  const prepared = inputs.map((input, index) => {
    const carrierMessageId = input.carrierMessageId.trim();
    if (!carrierMessageId) throw new Error("A receipt needs the carrier's message id.");
    const forms = input.candidates?.length ? [...input.candidates] : carrierIdForms(carrierMessageId);
    if (!forms.includes(carrierMessageId)) forms.push(carrierMessageId);
    return { input, index, carrierMessageId, forms };
  });
  const keys = [
    ...new Set(prepared.flatMap((p) => p.forms.map((form) => `${p.input.carrierId}:${form}`))),
  ].sort();
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTransaction(pool, async (client) => {
        await client.query({
          name: "receipts-lock-batch",
          // The same key as lockCarrierMessageId: carrier || ':' || id.
          text: "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n",
          values: [keys],
        });
        const { rows } = await client.query<{
          carrier_id: string;
          carrier_message_id: string;
          message_id: string;
        }>({
          name: "receipts-batch-messages",
          text: `SELECT carrier_id, carrier_message_id, message_id FROM message_segments
                 WHERE (carrier_id, carrier_message_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
          values: [
            prepared.flatMap((p) => p.forms.map(() => p.input.carrierId)),
            prepared.flatMap((p) => p.forms),
          ],
        });
        const messageOf = new Map(
          rows.map((row) => [`${row.carrier_id}:${row.carrier_message_id}`, row.message_id]),
        );
        const order = [...prepared].sort((a, b) => {
          const ma = a.forms.map((f) => messageOf.get(`${a.input.carrierId}:${f}`)).find(Boolean) ?? "";
          const mb = b.forms.map((f) => messageOf.get(`${b.input.carrierId}:${f}`)).find(Boolean) ?? "";
          return ma < mb ? -1 : ma > mb ? 1 : a.index - b.index;
        });
        const results: ReceiptResult[] = new Array(prepared.length);
        for (const { input, index, carrierMessageId, forms } of order) {
          const resolution = await resolveReceipt(client, {
            carrierId: input.carrierId,
            forms,
            quotedId: carrierMessageId,
            state: input.state,
            errorCode: input.errorCode,
            doneAt: input.doneAt,
          });
          const inserted = await client.query<{ id: string }>({
            name: "receipts-insert",
            text: INSERT_RECEIPT,
            values: [
              input.carrierId,
              carrierMessageId,
              input.state,
              input.errorCode ?? null,
              resolution.outcome,
              resolution.messageId ?? null,
              resolution.seq ?? null,
              input.raw === undefined ? null : JSON.stringify(input.raw),
            ],
          });
          results[index] = { ...resolution, receiptId: inserted.rows[0]!.id };
        }
        return results;
      });
    } catch (error) {
      if ((error as { code?: string }).code === DEADLOCK && attempt < 3) continue;
      throw error;
    }
  }
}
