import type pg from "pg";
import { idBoundAt, idTime, type IdPrefix } from "@sms/ids";
import { inTransaction, type Queryable } from "./transaction";

/**
 * Tables partitioned by UTC day (docs/decisions.md#partitions): each day is a table of its own,
 * created ahead and dropped whole once past retention, so retention is a DROP, not a DELETE of
 * millions of rows. A default partition takes a row whose day has no partition yet (an insert
 * never fails), and the partition of the rows that existed when the table was converted runs
 * from MINVALUE to the conversion's bound.
 *
 * A table's day is read from a timestamp column, or from its `<prefix>_<ULID>` key, whose first
 * characters are its creation time: partitioned by that key, a table keeps its primary key and
 * every look-up by id reads one partition.
 */
export const DAILY_PARTITIONED_TABLES = {
  carrier_receipts: { by: "time" },
  webhook_deliveries: { by: "id", prefix: "evt" },
  outbox_events: { by: "id", prefix: "evt" },
} as const satisfies Record<string, { by: "time" } | { by: "id"; prefix: IdPrefix }>;
export type DailyPartitionedTable = keyof typeof DAILY_PARTITIONED_TABLES;

/** One partition: its range (null: MINVALUE / MAXVALUE), or the default. */
export interface Partition {
  name: string;
  from: Date | null;
  to: Date | null;
  /** The range's bounds as PostgreSQL holds them: a timestamp's text, or an id bound. */
  fromBound: string | null;
  toBound: string | null;
  isDefault: boolean;
  /** PostgreSQL's estimate of its rows (counting them would read them all). */
  estimatedRows: number;
}

const DAY_MS = 86_400_000;

// The bound text is what PostgreSQL prints (`FOR VALUES FROM ('…') TO ('…')`, `DEFAULT`);
// a timestamp is cast in SQL, so the session's time zone and date style do not matter.
const PARTITIONS = String.raw`
SELECT name, is_default, estimated_rows, from_bound, to_bound,
       CASE WHEN $2 THEN from_bound::timestamptz END AS from_time, CASE WHEN $2 THEN to_bound::timestamptz END AS to_time
FROM (
  SELECT c.relname AS name, b.bound = 'DEFAULT' AS is_default, greatest(c.reltuples, 0)::bigint::int AS estimated_rows,
         (regexp_match(b.bound, 'FROM \(''([^'']*)''\)'))[1] AS from_bound,
         (regexp_match(b.bound, 'TO \(''([^'']*)''\)'))[1] AS to_bound
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid
  CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
  WHERE i.inhparent = $1::regclass
) p
ORDER BY is_default, from_bound IS NOT NULL, from_time, from_bound COLLATE "C", name`;

export async function listPartitions(db: Queryable, table: DailyPartitionedTable): Promise<Partition[]> {
  const byTime = DAILY_PARTITIONED_TABLES[table].by === "time";
  const { rows } = await db.query<{
    name: string;
    is_default: boolean;
    estimated_rows: number;
    from_bound: string | null;
    to_bound: string | null;
    from_time: Date | null;
    to_time: Date | null;
  }>(PARTITIONS, [table, byTime]);
  const timeOf = (bound: string | null, time: Date | null) =>
    byTime ? time : bound === null ? null : new Date(idTime(bound));
  return rows.map((row) => ({
    name: row.name,
    from: timeOf(row.from_bound, row.from_time),
    to: timeOf(row.to_bound, row.to_time),
    fromBound: row.from_bound,
    toBound: row.to_bound,
    isDefault: row.is_default,
    estimatedRows: row.estimated_rows,
  }));
}

/** The value a day starts at in the table's partition key: the time, or the smallest id made that day. */
function boundAt(table: DailyPartitionedTable, day: Date): string {
  const key = DAILY_PARTITIONED_TABLES[table];
  return key.by === "time" ? day.toISOString() : idBoundAt(key.prefix, day.getTime());
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
       FOR VALUES FROM ('${boundAt(table, day)}') TO ('${boundAt(table, next)}')`,
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

export interface DropOptions {
  /**
   * SQL that is true while a partition must stay although past `before` (rows with work left):
   * `{partition}` stands for the partition's name, `{from}` and `{to}` for its bounds (NULL: MINVALUE).
   * Asked with the partition locked, so nothing can change its rows between the answer and the drop.
   */
  keepWhile?: string;
}

/**
 * Drops the partitions whose every row is older than `before` (their upper bound is at or
 * before it), oldest first; the default partition is never dropped. A partition whose lock is
 * not had within a second is left for the next call, as is one `keepWhile` keeps.
 */
export async function dropPartitionsBefore(
  pool: pg.Pool,
  table: DailyPartitionedTable,
  before: Date,
  options: DropOptions = {},
): Promise<DroppedPartition[]> {
  const doomed = (await listPartitions(pool, table)).filter(
    (p) => !p.isDefault && p.to !== null && p.to <= before,
  );
  const dropped: DroppedPartition[] = [];
  for (const { name, estimatedRows, fromBound, toBound } of doomed) {
    const done = await ddl(pool, `DROP TABLE ${name}`, async (client) => {
      if (!options.keepWhile) return true;
      await client.query(`LOCK TABLE ${name} IN ACCESS EXCLUSIVE MODE`);
      const literal = (bound: string | null) => (bound === null ? "NULL" : client.escapeLiteral(bound));
      const keepWhile = options.keepWhile
        .replaceAll("{partition}", name)
        .replaceAll("{from}", literal(fromBound))
        .replaceAll("{to}", literal(toBound));
      const { rows } = await client.query<{ keep: boolean }>(`SELECT (${keepWhile}) AS keep`);
      return !rows[0]!.keep;
    });
    if (done) dropped.push({ table, name, rows: estimatedRows });
  }
  return dropped;
}

const LOCK_NOT_AVAILABLE = "55P03";
const OVERLAPS_DEFAULT_ROWS = "23514";
const DUPLICATE_TABLE = "42P07";

/**
 * Runs one DDL statement under the lock timeout, if `proceed` (run first, in the same
 * transaction) agrees; false when it did not, or gave way (lock, default rows, a race).
 */
async function ddl(
  pool: pg.Pool,
  statement: string,
  proceed: (client: pg.PoolClient) => Promise<boolean> = async () => true,
): Promise<boolean> {
  try {
    return await inTransaction(pool, async (client) => {
      await client.query(LOCK_TIMEOUT);
      if (!(await proceed(client))) return false;
      await client.query(statement);
      return true;
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === LOCK_NOT_AVAILABLE || code === OVERLAPS_DEFAULT_ROWS || code === DUPLICATE_TABLE)
      return false;
    throw error;
  }
}
