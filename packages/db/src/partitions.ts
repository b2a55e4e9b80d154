import type pg from "pg";
import { inTransaction, type Queryable } from "./transaction";

/**
 * Tables partitioned by UTC day of a timestamp column (docs/decisions.md#partitions): each day
 * is a table of its own, created ahead and dropped whole once past retention, so retention is
 * a DROP, not a DELETE of millions of rows. A default partition takes a row whose day has no
 * partition yet (an insert never fails), and the partition of the rows that existed when the
 * table was converted runs from MINVALUE to the conversion's bound.
 */
export const DAILY_PARTITIONED_TABLES = ["carrier_receipts"] as const;
export type DailyPartitionedTable = (typeof DAILY_PARTITIONED_TABLES)[number];

/** One partition: its range (null: MINVALUE / MAXVALUE), or the default. */
export interface Partition {
  name: string;
  from: Date | null;
  to: Date | null;
  isDefault: boolean;
  /** PostgreSQL's estimate of its rows (counting them would read them all). */
  estimatedRows: number;
}

const DAY_MS = 86_400_000;

// The bound text is what PostgreSQL prints (`FOR VALUES FROM ('…') TO ('…')`, `DEFAULT`);
// the timestamps are cast in SQL, so the session's time zone and date style do not matter.
const PARTITIONS = String.raw`
SELECT c.relname AS name, b.bound = 'DEFAULT' AS is_default, greatest(c.reltuples, 0)::bigint::int AS estimated_rows,
       (regexp_match(b.bound, 'FROM \(''([^'']*)''\)'))[1]::timestamptz AS "from",
       (regexp_match(b.bound, 'TO \(''([^'']*)''\)'))[1]::timestamptz AS "to"
FROM pg_inherits i
JOIN pg_class c ON c.oid = i.inhrelid
CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
WHERE i.inhparent = $1::regclass
ORDER BY is_default, "from" NULLS FIRST, name`;

export async function listPartitions(db: Queryable, table: DailyPartitionedTable): Promise<Partition[]> {
  const { rows } = await db.query<{
    name: string;
    is_default: boolean;
    estimated_rows: number;
    from: Date | null;
    to: Date | null;
  }>(PARTITIONS, [table]);
  return rows.map((row) => ({
    name: row.name,
    from: row.from,
    to: row.to,
    isDefault: row.is_default,
    estimatedRows: row.estimated_rows,
  }));
}

/** The name of a day's partition: `<table>_pYYYYMMDD` (UTC). */
export function dayPartitionName(table: DailyPartitionedTable, day: Date): string {
  return `${table}_p${day.toISOString().slice(0, 10).replaceAll("-", "")}`;
}

function startOfUtcDay(time: Date): Date {
  return new Date(Math.floor(time.getTime() / DAY_MS) * DAY_MS);
}

// DDL on a partitioned table takes a lock on the whole table: waiting in line for it would hold
// every insert behind the wait. Give up after a moment instead and try again on the next pass.
const LOCK_TIMEOUT = "SET LOCAL lock_timeout = '1s'";

/**
 * Creates the day partitions of [from, to) that no partition covers yet; returns their names.
 * A day whose rows already went to the default partition cannot get a partition of its own
 * (PostgreSQL refuses): it is skipped and its rows stay in the default partition.
 */
export async function ensureDayPartitions(
  pool: pg.Pool,
  table: DailyPartitionedTable,
  from: Date,
  to: Date,
): Promise<string[]> {
  const existing = (await listPartitions(pool, table)).filter((p) => !p.isDefault);
  const covered = (start: Date, end: Date) =>
    existing.some((p) => (p.from === null || p.from < end) && (p.to === null || p.to > start));
  const created: string[] = [];
  for (let day = startOfUtcDay(from); day < to; day = new Date(day.getTime() + DAY_MS)) {
    const next = new Date(day.getTime() + DAY_MS);
    if (covered(day, next)) continue;
    const name = dayPartitionName(table, day);
    const done = await ddl(
      pool,
      `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table}
       FOR VALUES FROM ('${day.toISOString()}') TO ('${next.toISOString()}')`,
    );
    if (done) created.push(name);
  }
  return created;
}

/** A dropped partition of `table`, with PostgreSQL's estimate of its rows. */
export interface DroppedPartition {
  table: DailyPartitionedTable;
  name: string;
  rows: number;
}

/**
 * Drops the partitions whose every row is older than `before` (their upper bound is at or
 * before it), oldest first; the default partition is never dropped. A partition whose lock is
 * not had within a second is left for the next call.
 */
export async function dropPartitionsBefore(
  pool: pg.Pool,
  table: DailyPartitionedTable,
  before: Date,
): Promise<DroppedPartition[]> {
  const doomed = (await listPartitions(pool, table)).filter(
    (p) => !p.isDefault && p.to !== null && p.to <= before,
  );
  const dropped: DroppedPartition[] = [];
  for (const { name, estimatedRows } of doomed)
    if (await ddl(pool, `DROP TABLE ${name}`)) dropped.push({ table, name, rows: estimatedRows });
  return dropped;
}

const LOCK_NOT_AVAILABLE = "55P03";
const OVERLAPS_DEFAULT_ROWS = "23514";
const DUPLICATE_TABLE = "42P07";

/** Runs one DDL statement under the lock timeout; false when it gave way (lock, default rows, a race). */
async function ddl(pool: pg.Pool, statement: string): Promise<boolean> {
  try {
    await inTransaction(pool, async (client) => {
      await client.query(LOCK_TIMEOUT);
      await client.query(statement);
    });
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === LOCK_NOT_AVAILABLE || code === OVERLAPS_DEFAULT_ROWS || code === DUPLICATE_TABLE)
      return false;
    throw error;
  }
}
