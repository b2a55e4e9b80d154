import { inTransaction } from "@sms/db";
import type pg from "pg";

// One folder at a time across replicas: two would add to the same count rows in different
// orders and deadlock. A replica that finds the lock taken skips its tick.
const FOLD_LOCK = "SELECT pg_try_advisory_xact_lock(hashtext('message_counts_fold')) AS held";

// The oldest deltas, summed per count row, added in key order; rows that reach 0 are
// returned so the next statement deletes them (a statement cannot change a row twice).
const FOLD = `
WITH taken AS (
  DELETE FROM message_count_deltas
  WHERE seq IN (SELECT seq FROM message_count_deltas ORDER BY seq LIMIT $1)
  RETURNING account_id, hour, status, delta
), summed AS (
  SELECT account_id, hour, status, sum(delta) AS delta FROM taken GROUP BY 1, 2, 3 HAVING sum(delta) <> 0
), added AS (
  INSERT INTO message_counts AS c (account_id, hour, status, count)
  SELECT account_id, hour, status, delta FROM summed ORDER BY 1, 2, 3
  ON CONFLICT (account_id, hour, status) DO UPDATE SET count = c.count + EXCLUDED.count
  RETURNING account_id, hour, status, count
)
SELECT (SELECT count(*)::int FROM taken) AS folded,
       (SELECT coalesce(array_agg(account_id), '{}') FROM added WHERE count = 0) AS zero_accounts,
       (SELECT coalesce(array_agg(hour), '{}') FROM added WHERE count = 0) AS zero_hours,
       (SELECT coalesce(array_agg(status::text), '{}') FROM added WHERE count = 0) AS zero_statuses`;

const DELETE_ZEROS = `
DELETE FROM message_counts AS c
USING unnest($1::text[], $2::timestamptz[], $3::"MessageStatus"[]) AS z(account_id, hour, status)
WHERE c.account_id = z.account_id AND c.hour = z.hour AND c.status = z.status AND c.count = 0`;

interface FoldRow {
  folded: number;
  zero_accounts: string[];
  zero_hours: Date[];
  zero_statuses: string[];
}

/**
 * Moves up to `limit` of the oldest status-change deltas into message_counts, in one
 * transaction (readers see them in one place or the other, never both). Returns how many
 * deltas it folded: 0 when there were none or another replica is folding.
 */
export async function foldMessageCounts(pool: pg.Pool, options: { limit: number }): Promise<number> {
  return inTransaction(pool, async (tx) => {
    const lock = await tx.query<{ held: boolean }>(FOLD_LOCK);
    if (!lock.rows[0]?.held) return 0;
    const { rows } = await tx.query<FoldRow>(FOLD, [options.limit]);
    const row = rows[0];
    if (!row || row.folded === 0) return 0;
    if (row.zero_accounts.length > 0)
      await tx.query(DELETE_ZEROS, [row.zero_accounts, row.zero_hours, row.zero_statuses]);
    return row.folded;
  });
}
