import type pg from "pg";

/** Runs `work` in a READ COMMITTED transaction on a pool connection; rolls back and rethrows on error. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    // The advisory lock is waited on inside the transaction: only READ COMMITTED lets the
    // statements after it see what the lock holder committed.
    await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
    const result = await work(client);
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    // A connection that failed mid-transaction may be broken: discard it rather than pool it.
    client.release(true);
    throw error;
  }
}
