import type pg from "pg";

// One key for one receipt key (receipt-keys.ts) of a carrier, shared by the dispatcher (recording a submit
// response) and dlr-ingest (applying a receipt): whichever commits second sees the
// other's row. Transaction-scoped: released at COMMIT/ROLLBACK, never leaked.
const LOCK = "SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 0))";

/**
 * Takes the transaction-scoped advisory lock of (carrier, receipt key). Call it
 * first in the transaction (before locking the message row), under READ COMMITTED.
 */
export async function lockCarrierMessageId(
  client: pg.PoolClient,
  carrierId: string,
  receiptKey: string,
): Promise<void> {
  await client.query({ name: "receipts-lock-id", text: LOCK, values: [carrierId, receiptKey] });
}
