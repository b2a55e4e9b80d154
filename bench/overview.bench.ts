// pnpm bench:overview — the dashboard overview of an account with BENCH_OVERVIEW_ROWS messages
// (default 2,000,000) in the last 24 hours, before and after the message counts
// (docs/decisions.md#message-counts). In a database of its own (sms_bench_overview) the messages
// and their history rows are made with generate_series, with their count deltas as acceptance
// writes them (then folded, timed), plus a quarter as many for a second account. It times
// the overview's reads the old way (counting the messages, kept here only) and the new way
// (loadOverview), with everything folded and with BENCH_OVERVIEW_UNFOLDED (5,000) deltas
// waiting. Last, why the counts are appended and folded rather than updated in place:
// BENCH_OVERVIEW_CLIENTS (8) connections each run transactions that do 2 ms of other work after
// either appending a delta row or bumping one shared count row (one account, one hour).
// Target: overview ≤ 50 ms.
import pg from "pg";
import { DATABASE_SESSION_OPTIONS } from "@sms/db";
// Relative: the code as the dashboard and the scheduler run it, without a workspace dependency.
import { foldMessageCounts, MESSAGE_COUNT_DELTAS_OF_ACCEPTED } from "../packages/message-state/src";
import { loadOverview } from "../services/dashboard/src/data/overview";
import { freshDatabase } from "./support";

const ROWS = Number(process.env.BENCH_OVERVIEW_ROWS ?? 2_000_000);
const UNFOLDED = Number(process.env.BENCH_OVERVIEW_UNFOLDED ?? 5_000);
const CLIENTS = Number(process.env.BENCH_OVERVIEW_CLIENTS ?? 8);
const CONTENTION_TX = 200;
const CHUNK = 250_000;
const RUNS = 7;
const HOUR_MS = 3600_000;

/**
 * Messages n of [$2, $3] for account $1 and their first history row, created over the last
 * 24 hours: 70 % delivered, 10 % failed, 12 % sent, 6 % queued, 2 % scheduled.
 */
const INSERT_CHUNK = `
WITH m AS (
  INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                        status, created_at, updated_at)
  SELECT $4 || lpad(n::text, 17, '0'), $1, '+1415' || lpad((n % 10000000)::text, 7, '0'), 'ACME', 'bench',
         'GSM7', 1, 1, s.status::"MessageStatus", c.at, c.at
  FROM generate_series($2::bigint, $3::bigint) AS n,
       LATERAL (SELECT now() - make_interval(secs => (n * 7919) % 86000) AS at) AS c,
       LATERAL (SELECT CASE WHEN n % 100 < 70 THEN 'delivered' WHEN n % 100 < 80 THEN 'failed'
                            WHEN n % 100 < 92 THEN 'sent' WHEN n % 100 < 98 THEN 'queued'
                            ELSE 'scheduled' END AS status) AS s
  RETURNING id, account_id, status, created_at
), events_in AS (
  INSERT INTO message_events (message_id, sequence, status, occurred_at) SELECT id, 1, status, created_at FROM m
)
${MESSAGE_COUNT_DELTAS_OF_ACCEPTED}`;

// The overview's reads before the message counts (what services/dashboard/src/data/overview.ts did
// then): both through the (account_id, created_at) index, every message of the day counted.
const OLD_BY_STATUS = `
SELECT status::text AS status, count(*)::int AS n FROM messages
WHERE account_id = $1 AND created_at >= $2 GROUP BY status`;
const OLD_BY_HOUR = `
SELECT floor(extract(epoch FROM created_at) / 3600)::int AS hour, status::text AS status, count(*)::int AS n
FROM messages WHERE account_id = $1 AND created_at >= $2 GROUP BY 1, 2`;

async function makeRows(db: pg.Client, accountId: string, prefix: string, rows: number): Promise<void> {
  for (let from = 1; from <= rows; from += CHUNK) {
    await db.query(INSERT_CHUNK, [accountId, from, Math.min(from + CHUNK - 1, rows), prefix]);
    process.stdout.write(`\r  ${accountId}: ${Math.min(from + CHUNK - 1, rows).toLocaleString()} messages`);
  }
  process.stdout.write("\n");
}

async function time(runs: number, work: () => Promise<unknown>): Promise<{ median: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await work();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, max: times[times.length - 1]! };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** Transactions per second when each of CLIENTS connections runs CONTENTION_TX of `statement` + 2 ms of other work. */
async function contention(url: string, statement: string, values: unknown[]): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < CONTENTION_TX; i++) {
        await client.query("BEGIN");
        await client.query(statement, values);
        await client.query("SELECT pg_sleep(0.002)");
        await client.query("COMMIT");
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(clients.map((client) => client.end()));
  return (CLIENTS * CONTENTION_TX) / seconds;
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const url = await freshDatabase(base, "sms_bench_overview");
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const [big, other] = ["acc_bench_overview", "acc_bench_other"];
  for (const id of [big, other])
    await db.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'bench', 0, now())", [
      id,
    ]);
  console.log(`overview of an account with ${ROWS.toLocaleString()} messages in the last 24 h`);
  const made = Date.now();
  await db.query("SET synchronous_commit = off");
  await makeRows(db, big, "msg_bench", ROWS);
  await makeRows(db, other, "msg_other", Math.floor(ROWS / 4));
  console.log(`  made in ${((Date.now() - made) / 1000).toFixed(0)} s`);

  const pool = new pg.Pool({ connectionString: url, max: 4, options: DATABASE_SESSION_OPTIONS });
  const deltas = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM message_count_deltas"))
    .rows[0]!.n;
  const folding = process.hrtime.bigint();
  while ((await foldMessageCounts(pool, { limit: 10_000 })) > 0);
  console.log(
    `  ${deltas.toLocaleString()} delta rows folded in ${ms(Number(process.hrtime.bigint() - folding) / 1e6)}`,
  );
  await db.query("VACUUM ANALYZE messages");
  await db.query("VACUUM ANALYZE message_counts");
  await db.query("VACUUM ANALYZE message_count_deltas");
  const counts = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM message_counts")).rows[0]!.n;
  console.log(`  message_counts: ${counts} rows`);

  const now = new Date();
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const firstHour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - 23 * HOUR_MS);
  const before = await time(RUNS, () =>
    Promise.all([
      pool.query("SELECT balance::text AS balance FROM accounts WHERE id = $1", [big]),
      pool.query(OLD_BY_STATUS, [big, midnight]),
      pool.query(OLD_BY_HOUR, [big, firstHour]),
    ]),
  );
  console.log(`\nbefore (counting the messages): median ${ms(before.median)}, max ${ms(before.max)}`);
  const after = await time(RUNS, () => loadOverview(pool, big, now));
  console.log(`after (loadOverview, all folded): median ${ms(after.median)}, max ${ms(after.max)}`);

  // About a second and a half of a 10-million-a-day account's status changes, not folded yet.
  await db.query(
    `INSERT INTO message_count_deltas (account_id, hour, status, delta)
     SELECT $1, date_trunc('hour', now(), 'UTC'), (ARRAY['queued', 'sent', 'delivered']::"MessageStatus"[])[1 + n % 3],
            CASE WHEN n % 3 = 2 THEN 1 ELSE -1 END
     FROM generate_series(1, $2) AS n`,
    [big, UNFOLDED],
  );
  await db.query("ANALYZE message_count_deltas");
  const unfolded = await time(RUNS, () => loadOverview(pool, big, now));
  console.log(
    `after, ${UNFOLDED.toLocaleString()} deltas unfolded: median ${ms(unfolded.median)}, max ${ms(unfolded.max)}`,
  );
  const plan = await db.query<{ "QUERY PLAN": string }>(
    `EXPLAIN (ANALYZE, BUFFERS) SELECT hour, status, sum(n) FROM (
       SELECT hour, status, count AS n FROM message_counts WHERE account_id = $1 AND hour >= $2
       UNION ALL SELECT hour, status, delta FROM message_count_deltas WHERE account_id = $1 AND hour >= $2) AS c
     GROUP BY 1, 2`,
    [big, firstHour],
  );
  console.log("\nplan of the counts' read:");
  for (const row of plan.rows) console.log(`  ${row["QUERY PLAN"]}`);

  const hour = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS);
  const appended = await contention(
    url,
    `INSERT INTO message_count_deltas (account_id, hour, status, delta) VALUES ($1, $2, 'sent', 1)`,
    ["acc_hot", hour],
  );
  const bumped = await contention(
    url,
    `INSERT INTO message_counts AS c (account_id, hour, status, count) VALUES ($1, $2, 'sent', 1)
     ON CONFLICT (account_id, hour, status) DO UPDATE SET count = c.count + 1`,
    ["acc_hot", hour],
  );
  console.log(
    `\n${CLIENTS} connections, transactions with 2 ms of other work: appending a delta ${appended.toFixed(0)}/s, ` +
      `bumping one shared count row ${bumped.toFixed(0)}/s`,
  );
  const load = (await import("node:os")).loadavg()[0]!.toFixed(1);
  console.log(
    `\noverview: ${ms(before.median)} before, ${ms(after.median)} after (${ms(unfolded.median)} with deltas waiting); ` +
      `target ≤ 50 ms: ${Math.max(after.median, unfolded.median) <= 50 ? "met" : "MISSED"} (load ${load})`,
  );
  await pool.end();
  await db.end();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
