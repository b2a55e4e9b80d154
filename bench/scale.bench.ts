// pnpm bench:scale — the database at an enterprise customer's scale (10 million messages a
// day). In a database of its own (sms_bench_scale) it builds BENCH_SCALE_MESSAGES messages (default
// 10,000,000) spread evenly over the last BENCH_SCALE_DAYS days (default 10), each with its status
// history, its segment and (when final) its carrier receipt, with generate_series. Then it prints:
// bytes per message of each table (indexes included), the gateway's list and lookup queries (p50 and
// p99 of BENCH_SCALE_RUNS runs of the Prisma calls its routes make), one retention pass dropping the
// oldest week of messages (and the receipts' days past retention) while a probe updates a recent
// message every 10 ms (its worst wait is the lock wait the sending path would see), and the CPU the
// scheduler uses idle with that data. BENCH_SCALE_REUSE=1 times the queries and a retention pass
// again on the database the last run left (its oldest week is the next one), without building it.
import path from "node:path";
import pg from "pg";
import {
  createDatabase,
  ensurePartitions,
  periodStart,
  type PartitionedTable,
  DATABASE_SESSION_OPTIONS,
} from "@sms/db";
import { idBoundAt } from "@sms/ids";
// Relative: the retention pass as the scheduler runs it, without a workspace dependency of the bench.
import { runRetentionPass } from "../services/scheduler/src/retention/pass";
import { startCpuMeter } from "./cpu-meter";
import { freshDatabase, root, startService, stopService, deleteRedisPrefix } from "./support";

const MESSAGES = Number(process.env.BENCH_SCALE_MESSAGES ?? 10_000_000);
const DAYS = Number(process.env.BENCH_SCALE_DAYS ?? 10);
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 200);
const IDLE_SECONDS = Number(process.env.BENCH_SCALE_IDLE_SECONDS ?? 30);
/** Set: the queries and a retention pass again, on the database the last run left. */
const REUSE = process.env.BENCH_SCALE_REUSE === "1";
const ACCOUNTS = 20;
const CHUNK = 200_000;
const DAY_MS = 86_400_000;
const TABLES = ["messages", "message_events", "message_segments", "carrier_receipts"];
const MESSAGE_TABLES: PartitionedTable[] = ["messages", "message_events", "message_segments"];

/** SQL for the 10 Crockford base32 characters of a millisecond time: a ULID's time part. */
function ulidTimeSql(ms: string): string {
  const alphabet = "'0123456789ABCDEFGHJKMNPQRSTVWXYZ'";
  return Array.from(
    { length: 10 },
    (_, i) => `substr(${alphabet}, ((${ms} >> ${5 * (9 - i)}) & 31)::int + 1, 1)`,
  ).join(" || ");
}

/**
 * Messages $1..$2 of $3, made at $4 (ms) + n × span / $3: 88 % delivered, 10 % failed, 1 % sent (valid
 * for two more days, so the expiry sweeps have nothing due), 1 % scheduled two days ahead (not
 * queued: a queued message here would have no job, and the reconciler would be busy re-enqueueing
 * it), with the rows the pipeline writes for them: one status change per step, one segment once
 * sent, and a receipt when final. An id's time is when its message is due (newMessageId): the
 * time it was made, or two days ahead for the scheduled ones.
 */
const INSERT_CHUNK = `
WITH n AS (
  SELECT n, ($4::bigint + n * $5::bigint / $3::bigint) AS ms FROM generate_series($1::bigint, $2::bigint) AS n
), m AS (
  INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                        status, status_sequence, created_at, updated_at, scheduled_at, sent_at, delivered_at, failed_at,
                        error_code, expires_at)
  SELECT 'msg_' || ${ulidTimeSql("CASE WHEN s.status = 'scheduled' THEN (extract(epoch FROM now() + interval '2 days') * 1000)::bigint ELSE ms END")}
           || lpad(n::text, 16, '0'), 'acc_bench_' || (n % ${ACCOUNTS}),
         '+1415' || lpad((n % 10000000)::text, 7, '0'), 'ACME',
         'Your order ' || n || ' has shipped and will arrive tomorrow. Track it at https://ex.am/p/' || n,
         'GSM7', 1, 1, s.status::"MessageStatus", s.sequence, t, t + interval '2 s',
         CASE WHEN s.status = 'scheduled' THEN now() + interval '2 days' END,
         CASE WHEN s.status <> 'scheduled' THEN t + interval '1 s' END,
         CASE WHEN s.status = 'delivered' THEN t + interval '2 s' END,
         CASE WHEN s.status = 'failed' THEN t + interval '2 s' END,
         CASE WHEN s.status = 'failed' THEN 'UNDELIVERABLE' END,
         CASE WHEN s.status IN ('scheduled', 'sent') THEN now() + interval '2 days' ELSE t + interval '1 day' END
  FROM n, LATERAL (SELECT to_timestamp(ms / 1000.0) AS t) AS time,
       LATERAL (SELECT CASE WHEN n % 100 < 88 THEN 'delivered' WHEN n % 100 < 98 THEN 'failed'
                            WHEN n % 100 = 98 THEN 'sent' ELSE 'scheduled' END AS status) AS st,
       LATERAL (SELECT st.status, CASE st.status WHEN 'scheduled' THEN 1 WHEN 'sent' THEN 2 ELSE 3 END AS sequence) AS s
  RETURNING id, status, status_sequence, created_at
), events AS (
  INSERT INTO message_events (message_id, sequence, status, previous_status, occurred_at)
  SELECT m.id, k, (ARRAY[CASE WHEN m.status = 'scheduled' THEN 'scheduled' ELSE 'queued' END, 'sent', m.status::text])[k]::"MessageStatus",
         (ARRAY[NULL, 'queued', 'sent'])[k]::"MessageStatus", m.created_at + make_interval(secs => k - 1)
  FROM m, generate_series(1, 3) AS k WHERE k <= m.status_sequence
), segments AS (
  INSERT INTO message_segments (message_id, seq, status, attempts, carrier_id, carrier_message_id, submitted_at,
                                done_at, submitted_by, submit_started_at)
  SELECT id, 1, CASE status WHEN 'sent' THEN 'submitted' ELSE status::text END::"SegmentStatus",
         1, 'car_bench', md5(id), created_at + interval '1 s',
         CASE WHEN status IN ('delivered', 'failed') THEN created_at + interval '2 s' END, 'bench:1', created_at + interval '1 s'
  FROM m WHERE status <> 'scheduled'
)
INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, error_code, outcome, message_id, seq,
                              received_at, raw, received_by, receipt_key, done_at)
SELECT 'car_bench', md5(id), CASE status WHEN 'delivered' THEN 'delivered' ELSE 'undeliverable' END,
       CASE WHEN status = 'failed' THEN '001' END, 'applied', id, 1, created_at + interval '2 s',
       jsonb_build_object('source', 'smpp', 'esm_class', 4, 'receipted_message_id', md5(id), 'message_state', 2,
                          'stat', 'DELIVRD', 'err', '000', 'sub', '001', 'dlvrd', '001',
                          'submit_date', '2611241200', 'done_date', '2611241200'),
       'dlr-ingest:1', md5(id), created_at + interval '2 s'
FROM m WHERE status IN ('delivered', 'failed')`;

async function build(db: pg.Client, url: string, startMs: number): Promise<void> {
  const started = Date.now();
  await db.query("SET synchronous_commit = off");
  for (let i = 0; i < ACCOUNTS; i++)
    await db.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'bench', 0, now())", [
      `acc_bench_${i}`,
    ]);
  // Receipts go to day partitions and messages to weeks, as in a database converted long ago
  // (not to the partitions of the rows from before the conversion, which cover every past day of
  // a new database).
  const partitions = new pg.Pool({ connectionString: url, max: 1 });
  await db.query("DROP TABLE carrier_receipts_legacy");
  await ensurePartitions(
    partitions,
    "carrier_receipts",
    new Date(startMs),
    new Date(startMs + (DAYS + 1) * DAY_MS),
  );
  for (const table of MESSAGE_TABLES) {
    await db.query(`DROP TABLE ${table}_legacy`);
    await ensurePartitions(partitions, table, new Date(startMs), new Date(Date.now() + 190 * DAY_MS));
  }
  await partitions.end();
  await db.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, updated_at)
     VALUES ('car_bench', 'bench', '127.0.0.1', 2775, 'bench', '', now())`,
  );
  for (let from = 0; from < MESSAGES; from += CHUNK) {
    const to = Math.min(from + CHUNK, MESSAGES) - 1;
    await db.query(INSERT_CHUNK, [from, to, MESSAGES, startMs, DAYS * DAY_MS]);
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(`\r  ${(to + 1).toLocaleString()} messages, ${seconds.toFixed(0)} s`);
  }
  for (const table of TABLES) await db.query(`VACUUM ANALYZE ${table}`);
  console.log(
    `\r  ${MESSAGES.toLocaleString()} messages built in ${((Date.now() - started) / 1000).toFixed(0)} s (vacuum included)`,
  );
}

async function printSizes(db: pg.Client): Promise<void> {
  console.log("\nbytes per message (pg_total_relation_size: heap, TOAST and indexes)");
  let total = 0;
  for (const table of TABLES) {
    const { rows } = await db.query<{ total: string; rows: string }>(
      // A partitioned table's size is its partitions' (pg_partition_tree has no rows for a plain table).
      `SELECT COALESCE((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree($1::regclass)),
                       pg_total_relation_size($1::regclass)) AS total,
              (SELECT count(*) FROM ${table}) AS rows`,
      [table],
    );
    const bytes = Number(rows[0]!.total);
    total += bytes;
    console.log(
      `  ${table.padEnd(18)} ${(bytes / MESSAGES).toFixed(0).padStart(6)} B  (${Number(rows[0]!.rows).toLocaleString()} rows)`,
    );
  }
  console.log(
    `  ${"together".padEnd(18)} ${(total / MESSAGES).toFixed(0).padStart(6)} B; ${(total / 2 ** 30).toFixed(2)} GiB`,
  );
}

function percentiles(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`;
}

async function timeQueries(url: string, startMs: number): Promise<void> {
  const database = createDatabase(url, { poolSize: 2 });
  const prisma = database.prisma;
  const otp = { select: { id: true, status: true, expiresAt: true } } as const;
  const account = (i: number) => `acc_bench_${i % ACCOUNTS}`;
  const midway = (i: number) => new Date(startMs + ((i * 7919) % (DAYS * 24)) * 3_600_000);
  // The gateway's GET /v1/sms (messages.route.ts): newest first by (created_at, id), limit 50.
  const list = (i: number, where: Record<string, unknown>) =>
    prisma.message.findMany({
      where: { accountId: account(i), ...where },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: 51,
      include: { otp },
    });
  const ids = (
    await database.pool.query<{ id: string }>(`SELECT id FROM messages TABLESAMPLE SYSTEM (1) LIMIT $1`, [
      RUNS,
    ])
  ).rows.map((row) => row.id);
  const queries: Array<[string, (i: number) => Promise<unknown>]> = [
    ["GET /v1/sms (first page)", (i) => list(i, {})],
    ["GET /v1/sms?status=failed", (i) => list(i, { status: "failed" })],
    [
      "GET /v1/sms?from&until (one hour)",
      (i) => list(i, { createdAt: { gte: midway(i), lt: new Date(midway(i).getTime() + 3_600_000) } }),
    ],
    [
      "GET /v1/sms?cursor, OR alone (before)",
      (i) =>
        list(i, { OR: [{ createdAt: { lt: midway(i) } }, { createdAt: midway(i), id: { lt: "msg_Z" } }] }),
    ],
    [
      "GET /v1/sms?cursor (a page days back)",
      (i) =>
        list(i, {
          createdAt: { lte: midway(i) },
          OR: [{ createdAt: { lt: midway(i) } }, { createdAt: midway(i), id: { lt: "msg_Z" } }],
        }),
    ],
    [
      "GET /v1/sms/{id} (with history)",
      (i) =>
        prisma.message.findFirst({
          where: { id: ids[i % ids.length]!, accountId: { startsWith: "acc_bench_" } },
          include: { events: { orderBy: { sequence: "asc" } }, otp },
        }),
    ],
  ];
  console.log(`\nthe gateway's queries, ${RUNS} runs each (Prisma, as its routes call it)`);
  for (const [name, run] of queries) {
    for (let i = 0; i < 5; i++) await run(i);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = process.hrtime.bigint();
      await run(i);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    console.log(`  ${name.padEnd(40)} ${percentiles(times)}`);
  }
  await database.close();
}

/**
 * One retention pass as if 90 days had passed since the end of the first week: it drops that
 * week of messages (and the receipts' days past retention then). The week's messages still open
 * are failed first, as the sweeps would have done long before (not timed).
 */
async function timeRetention(url: string, startMs: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 3, options: DATABASE_SESSION_OPTIONS });
  const weekEnd = periodStart("week", new Date(startMs)).getTime() + 7 * DAY_MS;
  await pool.query(
    "UPDATE messages SET status = 'failed', error_code = 'EXPIRED' WHERE status IN ('scheduled', 'queued', 'sent') AND id < $1",
    [idBoundAt("msg", weekEnd)],
  );
  const { rows } = await pool.query<{ id: string }>(
    "SELECT id FROM messages WHERE id < $1 ORDER BY id DESC LIMIT 1",
    [idBoundAt("msg", Date.now())],
  );
  const recent = rows[0]!.id;
  const probeTimes: number[] = [];
  let waiting = 0;
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const started = process.hrtime.bigint();
      await pool.query("UPDATE messages SET updated_at = now() WHERE id = $1", [recent]);
      probeTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
      // Sessions of this database waiting for a lock (the server is shared: others' waits are not ours).
      const locks = await pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      waiting = Math.max(waiting, locks.rows[0]!.n);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const days = 90;
  const now = new Date(weekEnd + days * DAY_MS + 60_000);
  const started = Date.now();
  const pass = await runRetentionPass(
    pool,
    { messages: days, receipts: days, webhooks: 0, outbox: 0, signIns: 0, otps: 0, ledger: 0 },
    { batchSize: 1000, maxPerTable: Number.MAX_SAFE_INTEGER, now },
  );
  const ms = Date.now() - started;
  probing = false;
  await probe;
  console.log(`\nretention pass dropping the oldest week of messages: ${(ms / 1000).toFixed(2)} s`);
  for (const [table, count] of Object.entries(pass?.deleted ?? {}))
    if (count) console.log(`  ${table.padEnd(18)} ${count.toLocaleString()} rows`);
  for (const { name, rows, ms } of pass?.droppedPartitions ?? [])
    console.log(`  ${name} dropped whole (about ${rows.toLocaleString()} rows) in ${ms} ms`);
  console.log(
    `  meanwhile an UPDATE of a recent message every 10 ms (${probeTimes.length} runs): ${percentiles(probeTimes)}, ` +
      `max ${Math.max(...probeTimes).toFixed(2)} ms; most sessions of this database seen waiting for a lock at once: ${waiting}`,
  );
  await pool.end();
}

async function measureIdleScheduler(url: string): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const prefix = `bench-scale-${process.pid}`;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const scheduler = await startService(
    "scheduler",
    { DATABASE_URL: url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "3932", HOST: "127.0.0.1" },
    "http://127.0.0.1:3932/readyz",
  );
  const meter = await startCpuMeter({ processes: [["scheduler", scheduler.pid!]], db });
  const started = Date.now();
  while (Date.now() - started < IDLE_SECONDS * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await meter.sample();
  }
  const parts = await meter.stop();
  const seconds = (Date.now() - started) / 1000;
  await stopService(scheduler);
  await deleteRedisPrefix(redisUrl, prefix);
  await db.end();
  console.log(
    `\nthe scheduler idle on this data for ${seconds.toFixed(0)} s (every loop at its default interval)`,
  );
  for (const [part, cpu] of parts.slice(0, 2))
    console.log(`  ${part.padEnd(40)} ${((100 * cpu) / seconds).toFixed(2)} % of a core`);
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  if (REUSE) {
    // The queries and a retention pass again on the database a previous run built, one week shorter.
    const reused = Object.assign(new URL(base), { pathname: "/sms_bench_scale" }).toString();
    const client = new pg.Client({ connectionString: reused });
    await client.connect();
    const { rows } = await client.query<{ ms: string }>(
      "SELECT (extract(epoch FROM min(created_at)) * 1000)::bigint AS ms FROM messages WHERE status IN ('delivered', 'failed')",
    );
    await client.end();
    await timeQueries(reused, Number(rows[0]!.ms));
    await timeRetention(reused, Number(rows[0]!.ms));
    return;
  }
  // Its own days and weeks (below), whatever BENCH_RETAINED_PARTITIONS says.
  const url = await freshDatabase(base, "sms_bench_scale", { retainedPartitions: false });
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const startMs = Date.now() - DAYS * DAY_MS;
  console.log(
    `${MESSAGES.toLocaleString()} messages over ${DAYS} days, ${ACCOUNTS} accounts (${path.relative(root, __filename)})`,
  );
  await build(db, url, startMs);
  await printSizes(db);
  await timeQueries(url, startMs);
  await measureIdleScheduler(url);
  await timeRetention(url, startMs);
  await db.end();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
