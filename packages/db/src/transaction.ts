import type pg from "pg";

/** A pool (work opens a transaction of its own) or a checked-out client (work joins the caller's transaction). */
export type Queryable = pg.Pool | pg.PoolClient;

function isPoolClient(db: Queryable): db is pg.PoolClient {
  return typeof (db as Partial<pg.PoolClient>).release === "function";
}

/**
 * Runs `work` in a READ COMMITTED transaction: the caller's, when given a client, or a
 * new one on a pool connection (rolled back and rethrown on error). READ COMMITTED is
 * explicit because advisory locks are waited on inside transactions, and only it lets
 * the statements after the lock see what the lock holder committed.
 */
export async function inTransaction<T>(
  db: Queryable,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  if (isPoolClient(db)) return work(db);
  const client = await db.connect();
  try {
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

const DEADLOCK_DETECTED = "40P01";

/**
 * Runs `work` again when PostgreSQL aborted it as one side of a deadlock, up to `attempts`
 * times in all. Only for work that is all-or-nothing (one statement, or one transaction
 * of its own): the aborted attempt then left nothing behind. Two writers of the same rows
 * can deadlock even in the same lock order, for example through the row lock a
 * foreign-key check takes on a row its own statement updated while another waits for it.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt >= attempts) throw error;
    }
  }
}
