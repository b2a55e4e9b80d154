import pg from "pg";

/**
 * A pool of ONE connection on which PostgreSQL may not scan a table sequentially (it still
 * can when no index applies, at a prohibitive cost), and the statistics of that connection's
 * own work. A statement run through it and then `indexScans(name) > 0` shows the statement
 * can use that index: a partial index whose predicate the planner cannot prove is never used.
 */
export function statsPool(databaseUrl: string): {
  pool: pg.Pool;
  indexScans(index: string): Promise<number>;
  tableUpdates(table: string): Promise<{ updated: number; hot: number }>;
} {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, options: "-c enable_seqscan=off" });
  // The world's DROP … WITH (FORCE) may still signal a closing connection after pool.end().
  pool.on("error", () => undefined);
  // Statistics reach the shared counters when the backend goes idle; force it at once.
  const flush = () => pool.query("SELECT pg_stat_force_next_flush()");
  return {
    pool,
    async indexScans(index) {
      await flush();
      // The index of a partitioned table has no scans of its own: its partitions' indexes do.
      const { rows } = await pool.query<{ scans: string }>(
        `SELECT sum(idx_scan) AS scans FROM pg_stat_user_indexes
         WHERE indexrelid = to_regclass($1) OR indexrelid IN (SELECT relid FROM pg_partition_tree(to_regclass($1)))`,
        [index],
      );
      if (rows[0]?.scans == null) throw new Error(`no index named ${index}`);
      return Number(rows[0].scans);
    },
    async tableUpdates(table) {
      await flush();
      // A partitioned table's rows are its partitions': their counters summed.
      const { rows } = await pool.query<{ updated: string | null; hot: string }>(
        `SELECT sum(n_tup_upd) AS updated, sum(n_tup_hot_upd) AS hot FROM pg_stat_user_tables
         WHERE relid IN (SELECT relid FROM pg_partition_tree(to_regclass($1)))`,
        [table],
      );
      if (rows[0]?.updated == null) throw new Error(`no table named ${table}`);
      return { updated: Number(rows[0]!.updated), hot: Number(rows[0]!.hot) };
    },
  };
}
