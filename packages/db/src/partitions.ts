import type pg from "pg";
import { idBoundAt, idTime, type IdPrefix } from "@sms/ids";
import { inTransaction, type Queryable } from "./transaction";

/**
 * Tables partitioned by time (docs/decisions.md#partitions): each UTC day or week is a table of
 * its own, created ahead and dropped whole once past retention, so retention is a DROP, not a
 * DELETE of millions of rows. A default partition takes a row whose period has no partition yet
 * (an insert never fails), and the partition of the rows that existed when the table was
 * converted runs from MINVALUE to the conversion's bound.
 *
 * A table's period is read from a timestamp column, or from its `<prefix>_<ULID>` key, whose
 * first characters are a time: partitioned by that key, a table keeps its primary key and every
 * look-up by id reads one partition. The message tables go by the week of the message id (the
 * time the message is due, newMessageId) and are dropped together, a week at a time; the others
 * by day.
 */
export const PARTITIONED_TABLES = {
  carrier_receipts: { by: "time", period: "day" },
  webhook_deliveries: { by: "id", prefix: "evt", period: "day" },
  outbox_events: { by: "id", prefix: "evt", period: "day" },
  messages: { by: "id", prefix: "msg", period: "week" },
  message_events: { by: "id", prefix: "msg", period: "week" },
  // Room on each page for the row's next version: a segment is updated at its submit, response and receipt.
  message_segments: { by: "id", prefix: "msg", period: "week", storage: "fillfactor = 80" },
} as const satisfies Record<
  string,
  ({ by: "time" } | { by: "id"; prefix: IdPrefix }) & { period: Period; storage?: string }
>;
export type PartitionedTable = keyof typeof PARTITIONED_TABLES;
export type Period = "day" | "week";

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

export async function listPartitions(db: Queryable, table: PartitionedTable): Promise<Partition[]> {
  const byTime = PARTITIONED_TABLES[table].by === "time";
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

/** The value a period starts at in the table's partition key: the time, or the smallest id made then. */
function boundAt(table: PartitionedTable, start: Date): string {
  const key = PARTITIONED_TABLES[table];
  return key.by === "time" ? start.toISOString() : idBoundAt(key.prefix, start.getTime());
}

/** The name of the partition of the period holding `time`: `<table>_pYYYYMMDD`, the period's first day (UTC). */
export function partitionName(table: PartitionedTable, time: Date): string {
  const start = periodStart(PARTITIONED_TABLES[table].period, time);
  return `${table}_p${start.toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** The start of the UTC day or ISO week (Monday 00:00 UTC) holding `time`. */
export function periodStart(period: Period, time: Date): Date {
  const day = Math.floor(time.getTime() / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
  const start = period === "day" ? day : day - ((day + 3) % 7);
  return new Date(start * DAY_MS);
}

function nextPeriod(period: Period, start: Date): Date {
  return new Date(start.getTime() + (period === "day" ? 1 : 7) * DAY_MS);
}

// DDL on a partitioned table takes a lock on the whole table: waiting in line for it would hold
// every insert behind the wait. Give up after a moment instead and try again on the next pass.
const LOCK_TIMEOUT = "SET LOCAL lock_timeout = '1s'";

/**
 * Creates the partitions of the periods overlapping [from, to) that no partition covers yet;
 * returns their names. A period whose rows already went to the default partition cannot get a
 * partition of its own (PostgreSQL refuses): it is skipped and its rows stay in the default.
 */
export async function ensurePartitions(
  pool: pg.Pool,
  table: PartitionedTable,
  from: Date,
  to: Date,
): Promise<string[]> {
  const scheme: { period: Period; storage?: string } = PARTITIONED_TABLES[table];
  const { period } = scheme;
  const existing = (await listPartitions(pool, table)).filter((p) => !p.isDefault);
  const covered = (start: Date, end: Date) =>
    existing.some((p) => (p.from === null || p.from < end) && (p.to === null || p.to > start));
  const created: string[] = [];
  for (let start = periodStart(period, from); start < to; start = nextPeriod(period, start)) {
    const end = nextPeriod(period, start);
    if (covered(start, end)) continue;
    const name = partitionName(table, start);
    // A table of its own, then attached: ATTACH locks the partitioned table in SHARE UPDATE
    // EXCLUSIVE mode, which lets every read and write through, where CREATE TABLE … PARTITION OF
    // locks it in ACCESS EXCLUSIVE mode and holds every insert for the moment it takes.
    const done = await ddl(
      pool,
      `CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING INDEXES)
       ${scheme.storage ? `WITH (${scheme.storage})` : ""};
       ALTER TABLE ${table} ATTACH PARTITION ${name}
       FOR VALUES FROM ('${boundAt(table, start)}') TO ('${boundAt(table, end)}')`,
    );
    if (done) created.push(name);
  }
  return created;
}

/** A dropped partition of `table`, with PostgreSQL's estimate of its rows. */
export interface DroppedPartition {
  table: PartitionedTable;
  name: string;
  rows: number;
  /** How long the transaction that dropped it (and the rest of its group) took, lock wait included. */
  ms: number;
}

export interface DropOptions {
  /**
   * SQL that is true while a partition must stay although past `before` (rows with work left):
   * `{partition}` stands for the partition's name, `{from}` and `{to}` for its bounds (NULL: MINVALUE).
   * Asked with the partition locked, so nothing can change its rows between the answer and the drop.
   */
  keepWhile?: string;
  /**
   * Tables partitioned alike whose partition of the same range goes in the same transaction
   * (the message tables: a message and its history and segments never outlive one another).
   */
  together?: readonly PartitionedTable[];
  /** SQL run just before the drop, in its transaction, with `{from}` and `{to}` as in keepWhile (rows of other tables that go with the range). */
  alongside?: string;
}

/**
 * Drops the partitions whose every row is older than `before` (their upper bound is at or
 * before it), oldest first; the default partition is never dropped. A partition whose lock is
 * not had within a second is left for the next call, as is one `keepWhile` keeps.
 */
export async function dropPartitionsBefore(
  pool: pg.Pool,
  table: PartitionedTable,
  before: Date,
  options: DropOptions = {},
): Promise<DroppedPartition[]> {
  const doomed = (await listPartitions(pool, table)).filter(
    (p) => !p.isDefault && p.to !== null && p.to <= before,
  );
  const companions = await Promise.all(
    (options.together ?? []).map(async (other) => ({
      table: other,
      partitions: await listPartitions(pool, other),
    })),
  );
  const dropped: DroppedPartition[] = [];
  for (const partition of doomed) {
    const { fromBound, toBound } = partition;
    const group = [
      { table, partition },
      ...companions.flatMap(({ table: other, partitions }) =>
        partitions
          .filter((p) => !p.isDefault && p.fromBound === fromBound && p.toBound === toBound)
          .map((p) => ({ table: other, partition: p })),
      ),
    ];
    const names = group.map((member) => member.partition.name);
    const started = performance.now();
    const done = await ddl(pool, `DROP TABLE ${names.join(", ")}`, async (client) => {
      const literal = (bound: string | null) => (bound === null ? "NULL" : client.escapeLiteral(bound));
      const fill = (sql: string) =>
        sql
          .replaceAll("{partition}", partition.name)
          .replaceAll("{from}", literal(fromBound))
          .replaceAll("{to}", literal(toBound));
      if (options.keepWhile) {
        // Every partition of the group at once, in a fixed order, before anything is read.
        await client.query(`LOCK TABLE ${names.join(", ")} IN ACCESS EXCLUSIVE MODE`);
        const { rows } = await client.query<{ keep: boolean }>(`SELECT (${fill(options.keepWhile)}) AS keep`);
        if (rows[0]!.keep) return false;
      }
      if (options.alongside) await client.query(fill(options.alongside));
      return true;
    });
    const ms = Math.round(performance.now() - started);
    if (done)
      dropped.push(
        ...group.map((member) => ({
          table: member.table,
          name: member.partition.name,
          rows: member.partition.estimatedRows,
          ms,
        })),
      );
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
