import type pg from "pg";
import { ensurePartitions, type PartitionedTable } from "@sms/db";

/**
 * Lays out `tables` as in a database converted long ago (docs/decisions.md#partitions): a fresh
 * database's first partition holds everything before the migrations' bound (the next day or
 * week); it goes (it must be empty), and every day or week from `from` to `to` gets a partition of
 * its own. Tests of plans and retention, and the benches' retained partitions, start from this.
 */
export async function partitionedSince(
  pool: pg.Pool,
  tables: readonly PartitionedTable[],
  from: Date,
  to: Date,
): Promise<void> {
  for (const table of tables) {
    await pool.query(`DROP TABLE ${table}_legacy`);
    await ensurePartitions(pool, table, from, to);
  }
}

const WEEK_MS = 7 * 86_400_000;

/**
 * The message tables of a database converted long ago under the default retention
 * (docs/decisions.md#message-weeks): a partition for each of the 13 weeks before `now` and of the
 * 27 weeks made ahead, where a statement bounded from above only plans every past one.
 */
export function retainedMessageWeeks(pool: pg.Pool, now: number): Promise<void> {
  return partitionedSince(
    pool,
    ["messages", "message_events", "message_segments"],
    new Date(now - 13 * WEEK_MS),
    new Date(now + 27 * WEEK_MS),
  );
}
