import type pg from "pg";
import type { HourBucket, ChartStatus } from "../views/chart";

export interface Overview {
  balance: bigint;
  /** Messages created since 00:00 UTC, by their current status. */
  today: Record<string, number>;
  /** delivered / (delivered + failed) of today's messages that reached a final state; null when none has. */
  deliveryRate: number | null;
  hours: HourBucket[];
}

const HOUR_MS = 3600_000;

// Both read the (account_id, created_at) indexes of messages; one account's day is small
// next to the table.
const BY_STATUS = `
SELECT status::text AS status, count(*)::int AS n FROM messages
WHERE account_id = $1 AND created_at >= $2 GROUP BY status`;
const BY_HOUR = `
SELECT floor(extract(epoch FROM created_at) / 3600)::int AS hour, status::text AS status, count(*)::int AS n
FROM messages WHERE account_id = $1 AND created_at >= $2 GROUP BY 1, 2`;

/** The overview of one account at `now`. */
export async function loadOverview(
  pool: pg.Pool,
  accountId: string,
  now = new Date(),
): Promise<Overview | null> {
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const firstHour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - 23 * HOUR_MS);
  const [account, today, hourly] = await Promise.all([
    pool.query<{ balance: string }>("SELECT balance::text AS balance FROM accounts WHERE id = $1", [
      accountId,
    ]),
    pool.query<{ status: string; n: number }>(BY_STATUS, [accountId, midnight]),
    pool.query<{ hour: number; status: string; n: number }>(BY_HOUR, [accountId, firstHour]),
  ]);
  const row = account.rows[0];
  if (!row) return null;
  const counts = Object.fromEntries(today.rows.map((r) => [r.status, r.n]));
  return {
    balance: BigInt(row.balance),
    today: counts,
    deliveryRate: deliveryRate(counts),
    hours: toBuckets(hourly.rows, firstHour),
  };
}

/** delivered / (delivered + failed), or null before anything reached a final state. */
export function deliveryRate(counts: Record<string, number | undefined>): number | null {
  const delivered = counts.delivered ?? 0;
  const finished = delivered + (counts.failed ?? 0);
  return finished === 0 ? null : delivered / finished;
}

/** 24 hourly buckets from `firstHour`, zeros included; `hour` is hours since the Unix epoch. */
export function toBuckets(
  rows: readonly { hour: number; status: string; n: number }[],
  firstHour: Date,
): HourBucket[] {
  const buckets: HourBucket[] = Array.from({ length: 24 }, (_, i) => ({
    start: new Date(firstHour.getTime() + i * HOUR_MS),
    counts: {},
  }));
  for (const row of rows) {
    const bucket = buckets[row.hour - firstHour.getTime() / HOUR_MS];
    const status = row.status as ChartStatus;
    if (bucket) bucket.counts[status] = (bucket.counts[status] ?? 0) + row.n;
  }
  return buckets;
}
