import type pg from "pg";
import { dropPartitionsBefore, ensurePartitions, listPartitions, type DroppedPartition } from "@sms/db";
import { idBoundAt } from "@sms/ids";
import {
  INDEXED_BY_TIME_TABLES,
  PARTITION_RETENTION,
  RETENTION_TABLES,
  type RetentionKind,
  type RetentionTable,
} from "./tables";

/** Days each kind of data is kept; 0 keeps it for ever (docs/operations.md#retention). */
export type RetentionPolicy = Record<RetentionKind, number>;

export interface RetentionPassOptions {
  /** Rows deleted per statement (one short transaction each). */
  batchSize: number;
  /** Most rows deleted per table in one pass; the next pass continues. */
  maxPerTable: number;
  /** The clock the ages are counted against (tests move it). */
  now?: Date;
  isStopping?: () => boolean;
}

/** What one pass did; null when another replica holds the retention lock. */
export type RetentionPassResult = {
  /** Rows deleted, by table. */
  deleted: Record<string, number>;
  /** Partitions created ahead. */
  createdPartitions: string[];
  /** Day and week partitions dropped past retention, with their estimated rows. */
  droppedPartitions: DroppedPartition[];
} | null;

// One pass at a time across every scheduler replica: a second one would only fight over the same
// pages. A session lock, not a transaction one, because a pass is many short transactions.
const RETENTION_LOCK = "SELECT pg_try_advisory_lock(hashtextextended('sms.retention', 0)) AS locked";
const RETENTION_UNLOCK = "SELECT pg_advisory_unlock(hashtextextended('sms.retention', 0))";

function cutoffOf(policy: RetentionPolicy, kind: RetentionKind, now: Date): Date | null {
  return policy[kind] > 0 ? new Date(now.getTime() - policy[kind] * DAY_MS) : null;
}

/** Keeps each partitioned table's partitions ready ahead, and drops those wholly past retention. */
async function maintainPartitions(
  pool: pg.Pool,
  policy: RetentionPolicy,
  options: RetentionPassOptions,
): Promise<{ createdPartitions: string[]; droppedPartitions: DroppedPartition[] }> {
  const now = options.now ?? new Date();
  const createdPartitions: string[] = [];
  const droppedPartitions: DroppedPartition[] = [];
  for (const { table, kind, aheadDays, together = [], keepWhile, alongside } of PARTITION_RETENTION) {
    if (options.isStopping?.()) break;
    const ahead = new Date(now.getTime() + (aheadDays + 1) * DAY_MS);
    for (const each of [table, ...together])
      createdPartitions.push(...(await ensurePartitions(pool, each, now, ahead)));
    const before = cutoffOf(policy, kind, now);
    if (before)
      droppedPartitions.push(
        ...(await dropPartitionsBefore(pool, table, before, { keepWhile, together, alongside })),
      );
  }
  return { createdPartitions, droppedPartitions };
}

const FINAL_STATUSES = "('delivered', 'failed', 'canceled')";
const DAY_MS = 86_400_000;

/**
 * Deletes what is past retention, oldest first, in pages of `batchSize` rows, each its own
 * short transaction whose rows are taken FOR UPDATE SKIP LOCKED: a row another transaction
 * holds (a late receipt on a delivered message) is skipped for the next pass, never waited for.
 */
export async function runRetentionPass(
  pool: pg.Pool,
  policy: RetentionPolicy,
  options: RetentionPassOptions,
): Promise<RetentionPassResult> {
  const client = await pool.connect();
  // A connection that failed mid-pass may still hold the session lock: it is closed, not pooled,
  // so PostgreSQL releases the lock with it and the next pass (here or on another replica) runs.
  let broken: Error | undefined;
  try {
    if (!(await client.query<{ locked: boolean }>(RETENTION_LOCK)).rows[0]!.locked) return null;
    // Whole partitions first: what they drop, the batched deletes need not walk.
    const partitions = await maintainPartitions(pool, policy, options);
    const deleted = await deleteEverythingPast(client, policy, options);
    await client.query(RETENTION_UNLOCK);
    return { deleted, ...partitions };
  } catch (error) {
    broken = error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
}

async function deleteEverythingPast(
  client: pg.PoolClient,
  policy: RetentionPolicy,
  options: RetentionPassOptions,
): Promise<Record<string, number>> {
  const now = options.now ?? new Date();
  const cutoff = (kind: RetentionKind) => cutoffOf(policy, kind, now);
  const deleted: Record<string, number> = {};
  const add = (table: string, count: number) => (deleted[table] = (deleted[table] ?? 0) + count);
  const messagesCutoff = cutoff("messages");
  if (messagesCutoff)
    for (const [table, count] of Object.entries(await deleteFinalMessages(client, messagesCutoff, options)))
      add(table, count);
  for (const table of RETENTION_TABLES) {
    const before = cutoff(table.kind);
    if (before && !options.isStopping?.())
      add(table.table, await deleteByKey(client, table, before, options));
  }
  for (const { table, time, kind } of INDEXED_BY_TIME_TABLES) {
    const before = kind === "expired" ? now : cutoff(kind);
    if (before && !options.isStopping?.())
      add(table, await deleteByTime(client, table, time, before, options));
  }
  return deleted;
}

/**
 * Final messages due before `before` in the partition of the rows stored before the tables were
 * partitioned (weeks go whole, in maintainPartitions), with their history, segments and OTP, in pages. The read walks the
 * primary key up to the id bound of the cutoff (an id's time is when its message was due), so a
 * message still queued or sent past its retention is stepped over and kept: the expiry sweeps
 * make it final in time, and the next pass takes it.
 */
async function deleteFinalMessages(
  client: pg.PoolClient,
  before: Date,
  options: RetentionPassOptions,
): Promise<Record<string, number>> {
  const counts = { message_events: 0, message_segments: 0, otps: 0, messages: 0 };
  // Not into the week partitions: a week goes whole (maintainPartitions), and one kept for a
  // message still open is not deleted row by row meanwhile.
  const firstWeek = (await listPartitions(client, "messages"))
    .filter((p) => !p.isDefault && p.fromBound !== null)
    .map((p) => p.fromBound!)
    .sort()[0];
  const cutoffBound = idBoundAt("msg", before.getTime());
  const bound = firstWeek !== undefined && firstWeek < cutoffBound ? firstWeek : cutoffBound;
  let after = "";
  while (counts.messages < options.maxPerTable && !options.isStopping?.()) {
    await client.query("BEGIN");
    try {
      const page = await client.query<{ last: string | null; seen: number; ids: string[] }>(
        `WITH head AS (
           SELECT id FROM messages WHERE id > $1 AND id < $2 ORDER BY id LIMIT $3
         ), doomed AS (
           SELECT m.id FROM messages m JOIN head USING (id)
           WHERE m.created_at < $4 AND m.status IN ${FINAL_STATUSES}
           FOR UPDATE OF m SKIP LOCKED
         )
         SELECT (SELECT max(id) FROM head) AS last, (SELECT count(*)::int FROM head) AS seen,
                ARRAY(SELECT id FROM doomed) AS ids`,
        [after, bound, options.batchSize, before],
      );
      const { last, seen, ids } = page.rows[0]!;
      for (const child of ["message_events", "message_segments", "otps"] as const)
        counts[child] +=
          (await client.query(`DELETE FROM ${child} WHERE message_id = ANY($1)`, [ids])).rowCount ?? 0;
      counts.messages += (await client.query("DELETE FROM messages WHERE id = ANY($1)", [ids])).rowCount ?? 0;
      await client.query("COMMIT");
      if (seen < options.batchSize || last === null) break;
      after = last;
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  }
  return counts;
}

/**
 * Rows of `table` older than `before`, walked in key order from a cursor; it stops at a page that
 * is not full or whose last row is younger than the cutoff (keys follow creation time), so rows
 * kept for `keepWhile` are stepped over, never read twice in a pass.
 */
async function deleteByKey(
  client: pg.PoolClient,
  { table, key, keyType, time, keepWhile }: RetentionTable,
  before: Date,
  options: RetentionPassOptions,
): Promise<number> {
  let deleted = 0;
  let after = null as string | null;
  while (deleted < options.maxPerTable && !options.isStopping?.()) {
    const { rows } = await client.query<KeyPage>(
      `WITH head AS (
         SELECT t.${key} AS key, t.${time} < $2 AS old FROM ${table} t
         WHERE $1::${keyType} IS NULL OR t.${key} > $1::${keyType} ORDER BY t.${key} LIMIT $3
       ), doomed AS (
         SELECT t.${key} AS key FROM ${table} t JOIN head h ON h.key = t.${key}
         WHERE h.old ${keepWhile ? `AND NOT (${keepWhile})` : ""}
         FOR UPDATE OF t SKIP LOCKED
       ), gone AS (
         DELETE FROM ${table} t USING doomed d WHERE t.${key} = d.key RETURNING 1
       )
       SELECT last.key::text AS last, last.old AS last_is_old, (SELECT count(*)::int FROM head) AS seen,
              (SELECT count(*)::int FROM gone) AS gone
       FROM (SELECT 1) AS one LEFT JOIN LATERAL (SELECT key, old FROM head ORDER BY key DESC LIMIT 1) AS last ON true`,
      [after, before, options.batchSize],
    );
    const page = rows[0]!;
    deleted += page.gone;
    if (page.seen < options.batchSize || !page.last_is_old || page.last === null) break;
    after = page.last;
  }
  return deleted;
}

interface KeyPage {
  last: string | null;
  last_is_old: boolean | null;
  seen: number;
  gone: number;
}

/** Rows of `table` whose `time` is before `before`, found through the index of that column. */
async function deleteByTime(
  client: pg.PoolClient,
  table: string,
  time: string,
  before: Date,
  options: RetentionPassOptions,
): Promise<number> {
  let deleted = 0;
  while (deleted < options.maxPerTable && !options.isStopping?.()) {
    const { rowCount } = await client.query(
      `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM ${table} WHERE ${time} < $1 ORDER BY ${time} LIMIT $2 FOR UPDATE SKIP LOCKED))`,
      [before, options.batchSize],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < options.batchSize) break;
  }
  return deleted;
}
