import type pg from "pg";

// One key for one carrier message id, shared by the dispatcher (recording a submit
// response) and dlr-ingest (applying a receipt): whichever commits second sees the
// other's row. Transaction-scoped: released at COMMIT/ROLLBACK, never leaked.
const LOCK = "SELECT pg_advisory_xact_lock(hashtextextended($1::text || ':' || $2::text, 0))";

/**
 * Takes the transaction-scoped advisory lock of (carrier, carrier message id). Call it
 * first in the transaction (before locking the message row), under READ COMMITTED.
 */
export async function lockCarrierMessageId(
  client: pg.PoolClient,
  carrierId: string,
  carrierMessageId: string,
): Promise<void> {
  await client.query({ name: "receipts-lock-id", text: LOCK, values: [carrierId, carrierMessageId] });
}

/** Locks every form of an id, in sorted order so that overlapping sets never deadlock. */
export async function lockCarrierMessageIds(
  client: pg.PoolClient,
  carrierId: string,
  forms: readonly string[],
): Promise<void> {
  for (const form of [...new Set(forms)].sort()) await lockCarrierMessageId(client, carrierId, form);
}
