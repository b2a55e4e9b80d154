import type pg from "pg";
import { waitFor } from "./wait";

/**
 * Holds `table` locked ACCESS EXCLUSIVE for `ms` from now; `released` resolves once the lock is
 * given back. A stop test uses it to make the work in flight at a SIGTERM wait, so the stop takes
 * long enough for a /readyz probe to see the service go unready first (a stop with nothing in
 * flight is over in a few ms). An object, not the promise itself: an async function resolving
 * to a promise would be awaited until the release.
 */
export async function lockTableFor(
  pool: pg.Pool,
  table: string,
  ms: number,
): Promise<{ released: Promise<void> }> {
  const client = await pool.connect();
  await client.query("BEGIN");
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  const released = new Promise((resolve) => setTimeout(resolve, ms)).then(async () => {
    await client.query("COMMIT");
    client.release();
  });
  return { released };
}

/**
 * Resolves once a backend named `applicationName` (the service's application_name) waits for a
 * lock in this database: with lockTableFor, the moment the service has work in flight that the
 * lock holds up, so a SIGTERM sent then finds something to wait for.
 */
export async function waitForLockWaiter(
  pool: pg.Pool,
  applicationName: string,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = $1 AND wait_event_type = 'Lock'`,
        [applicationName],
      );
      return rows[0]!.n > 0;
    },
    { timeoutMs, intervalMs: 10, what: `${applicationName} waiting for a lock` },
  );
}
