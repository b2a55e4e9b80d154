import type pg from "pg";

/**
 * Where a state change runs: a pool (the function opens and commits a transaction of
 * its own) or a client the caller checked out (the change joins the caller's open
 * transaction and commits or rolls back with it).
 */
export type Queryable = pg.Pool | pg.PoolClient;

function isPoolClient(db: Queryable): db is pg.PoolClient {
  return typeof (db as Partial<pg.PoolClient>).release === "function";
}

/** Runs `work` in the caller's transaction (a PoolClient) or in a new one on a pool connection. */
export async function inTransaction<T>(
  db: Queryable,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  if (isPoolClient(db)) return work(db);
  const client = await db.connect();
  try {
    await client.query("BEGIN");
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
