import type { Queryable } from "@sms/db";

/** Messages created in one UTC hour that are now in one status. */
export interface HourCount {
  /** Hours since the Unix epoch (UTC). */
  hour: number;
  status: string;
  n: number;
}

// Folded counts plus the deltas not folded yet, in one statement: one snapshot, so a fold
// committing meanwhile is seen whole or not at all. Both read by (account_id, hour): the cost
// is the hours asked for, not the messages in them.
const ACCOUNT_HOURS = `
SELECT (extract(epoch FROM hour) / 3600)::int AS hour, status::text AS status, sum(n)::int AS n FROM (
  SELECT hour, status, count AS n FROM message_counts WHERE account_id = $1 AND hour >= $2 AND hour < $3
  UNION ALL
  SELECT hour, status, delta FROM message_count_deltas WHERE account_id = $1 AND hour >= $2 AND hour < $3
) AS counts GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`;

/** One account's messages created in [from, to), by UTC hour and current status (`from` and `to` whole hours). */
export async function countAccountHours(
  db: Queryable,
  accountId: string,
  from: Date,
  to: Date,
): Promise<HourCount[]> {
  const { rows } = await db.query<HourCount>(ACCOUNT_HOURS, [accountId, from, to]);
  return rows;
}

// message_counts keeps a row only while its count is not 0, so the rows of a status messages
// leave again are the hours that still hold one: bounded by traffic in flight, not by history.
const PLATFORM_STATUSES = `
SELECT status::text AS status, sum(n)::bigint::text AS n FROM (
  SELECT status, count AS n FROM message_counts WHERE status = ANY($1::"MessageStatus"[])
  UNION ALL
  SELECT status, delta FROM message_count_deltas WHERE status = ANY($1::"MessageStatus"[])
) AS counts GROUP BY 1 HAVING sum(n) <> 0`;

/** Messages of every account now in each of `statuses` (a status absent from the result has none). */
export async function countPlatformStatuses(
  db: { query<R extends object>(sql: string, values?: unknown[]): Promise<{ rows: R[] }> },
  statuses: readonly string[],
): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: string }>(PLATFORM_STATUSES, [statuses]);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
