import type pg from "pg";
import { countAccountHours, type HourCount } from "@sms/message-state";
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

/**
 * The overview of one account at `now`, from the message counts (docs/decisions.md#message-counts):
 * 24 hours of (hour, status) rows, whatever the account's volume. Today is the hours since
 * midnight UTC, which never starts before the chart's first hour.
 */
export async function loadOverview(
  pool: pg.Pool,
  accountId: string,
  now = new Date(),
): Promise<Overview | null> {
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const firstHour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - 23 * HOUR_MS);
  const [account, hourly] = await Promise.all([
    pool.query<{ balance: string }>("SELECT balance::text AS balance FROM accounts WHERE id = $1", [
      accountId,
    ]),
    countAccountHours(pool, accountId, firstHour, new Date(firstHour.getTime() + 24 * HOUR_MS)),
  ]);
  const row = account.rows[0];
  if (!row) return null;
  const counts = sumSince(hourly, midnight);
  return {
    balance: BigInt(row.balance),
    today: counts,
    deliveryRate: deliveryRate(counts),
    hours: toBuckets(hourly, firstHour),
  };
}

/** Counts by status of the rows from `since` (a whole hour) on. */
export function sumSince(rows: readonly HourCount[], since: Date): Record<string, number> {
  const counts: Record<string, number> = {};
  const firstHour = since.getTime() / HOUR_MS;
  for (const row of rows) if (row.hour >= firstHour) counts[row.status] = (counts[row.status] ?? 0) + row.n;
  return counts;
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
