// pnpm bench:status-updates — what a status change of a message costs PostgreSQL, and how much of
// it is the upkeep of the messages table's secondary indexes. In a database of its own
// (sms_bench_status_updates), BENCH_STATUS_MESSAGES (default 20,000) queued messages of the
// current week; then @sms/message-state's applyTransitions moves them to sent and then to
// delivered in batches of BENCH_STATUS_BATCH (default 50), as the dispatcher and dlr-ingest do.
// Each variant on a fresh database, alternated: as deployed; with every index of messages but its
// primary key dropped; and that with the partitions' fillfactor at 80, room for an update's tuple. Printed for each: the statement's time per message and change, the share
// of heap-only (HOT) updates, and the bytes the messages table and its indexes grew by.
//
// Every index that holds `status` (in its key or its WHERE) makes every status change a non-HOT
// update: a new heap tuple and a new entry in every index of the row (docs/benchmarks.md#status-updates).
import pg from "pg";
import { newId } from "@sms/ids";
import { DATABASE_SESSION_OPTIONS } from "@sms/db";
// Relative: the statement as the services run it, without a workspace dependency of the bench.
import { applyTransitions } from "../packages/message-state/src";
import { createBenchAccount, freshDatabase } from "./support";

const TOTAL = Number(process.env.BENCH_STATUS_MESSAGES ?? 20_000);
const BATCH = Number(process.env.BENCH_STATUS_BATCH ?? 50);
const ROUNDS = Number(process.env.BENCH_STATUS_ROUNDS ?? 2);
const BASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

const INSERT_QUEUED = `
INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                      status, created_at, updated_at, expires_at)
SELECT id, $2, '+1415' || lpad((n % 10000000)::text, 7, '0'), 'ACME', 'bench', 'GSM7', 1, 1,
       'queued', now(), now(), now() + interval '48 hours'
FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`;

const SIZE = `
SELECT sum(pg_relation_size(c.oid)) FILTER (WHERE c.relkind = 'r')::bigint AS heap,
       sum(pg_relation_size(c.oid)) FILTER (WHERE c.relkind = 'i')::bigint AS indexes,
       (SELECT sum(n_tup_upd) FROM pg_stat_user_tables WHERE relname LIKE 'messages%')::bigint AS updates,
       (SELECT sum(n_tup_hot_upd) FROM pg_stat_user_tables WHERE relname LIKE 'messages%')::bigint AS hot
FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
JOIN pg_class parent ON parent.oid = i.inhparent
WHERE parent.relname = 'messages' OR parent.relname LIKE 'messages\\_%'`;

interface Sizes {
  heap: number;
  indexes: number;
  updates: number;
  hot: number;
}

async function sizes(db: pg.Pool): Promise<Sizes> {
  // The statistics collector reports a backend's counts when it goes idle: wait for them.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  const { rows } = await db.query(SIZE);
  const row = rows[0];
  return { heap: +row.heap, indexes: +row.indexes, updates: +row.updates, hot: +row.hot };
}

interface Variant {
  name: string;
  withSecondaryIndexes: boolean;
  /** The partitions' fillfactor: room on each page for an update's new tuple (100 as deployed). */
  fillfactor: number;
}

async function prepare(variant: Variant): Promise<{ pool: pg.Pool; ids: string[] }> {
  const url = await freshDatabase(BASE_URL, "sms_bench_status_updates");
  const { accountId } = await createBenchAccount(url, "ACME");
  const pool = new pg.Pool({ connectionString: url, max: 2, options: DATABASE_SESSION_OPTIONS });
  if (variant.fillfactor !== 100) {
    const { rows } = await pool.query<{ name: string }>(
      "SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'messages'::regclass",
    );
    for (const { name } of rows)
      await pool.query(`ALTER TABLE ${name} SET (fillfactor = ${variant.fillfactor})`);
  }
  const ids = Array.from({ length: TOTAL }, () => newId("msg")).sort();
  await pool.query(INSERT_QUEUED, [ids, accountId]);
  if (!variant.withSecondaryIndexes) {
    const { rows } = await pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
       WHERE x.indrelid = 'messages'::regclass AND NOT x.indisprimary`,
    );
    for (const { name } of rows) await pool.query(`DROP INDEX "${name}"`);
  }
  await pool.query("VACUUM ANALYZE messages");
  return { pool, ids };
}

/** Moves every message to `to`, BATCH at a time; the statement's time per message. */
async function changeAll(pool: pg.Pool, ids: string[], to: "sent" | "delivered"): Promise<number> {
  const at = new Date();
  let spent = 0n;
  for (let start = 0; start < ids.length; start += BATCH) {
    const batch = ids.slice(start, start + BATCH).map((messageId) => ({ messageId, to, at }));
    const began = process.hrtime.bigint();
    const results = await applyTransitions(pool, batch);
    spent += process.hrtime.bigint() - began;
    if (results.some((result) => !result.applied)) throw new Error(`a change to ${to} was not applied`);
  }
  return Number(spent) / 1000 / ids.length;
}

async function run(variant: Variant) {
  const { pool, ids } = await prepare(variant);
  try {
    const before = await sizes(pool);
    const sent = await changeAll(pool, ids, "sent");
    const delivered = await changeAll(pool, ids, "delivered");
    const after = await sizes(pool);
    const updates = after.updates - before.updates;
    return {
      sent,
      delivered,
      hotShare: updates > 0 ? (after.hot - before.hot) / updates : 0,
      heapGrowth: (after.heap - before.heap) / TOTAL,
      indexGrowth: (after.indexes - before.indexes) / TOTAL,
    };
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  console.log(
    `bench:status-updates: ${TOTAL} messages, applyTransitions in batches of ${BATCH}, ${ROUNDS} rounds alternated`,
  );
  const variants: Variant[] = [
    { name: "as deployed", withSecondaryIndexes: true, fillfactor: 100 },
    { name: "primary key only", withSecondaryIndexes: false, fillfactor: 100 },
    { name: "pkey only, ff 80", withSecondaryIndexes: false, fillfactor: 80 },
  ];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of variants) {
      const r = await run(variant);
      console.log(
        `  round ${round}, ${variant.name.padEnd(17)} → sent ${r.sent.toFixed(0).padStart(4)} µs, → delivered ${r.delivered
          .toFixed(0)
          .padStart(4)} µs per message; HOT ${(100 * r.hotShare).toFixed(0).padStart(3)} %; ` +
          `messages grew by ${r.heapGrowth.toFixed(0)} B heap + ${r.indexGrowth.toFixed(0)} B indexes per message`,
      );
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
