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
