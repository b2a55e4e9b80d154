// pnpm bench:sweeps — the validity and receipt-timeout sweeps (docs/messages.md#validity) on a big messages
// table. In a database of its own (sms_bench_sweeps), BENCH_SWEEP_ROWS messages (default
// 5,000,000) are made with generate_series, in the mix a busy deployment holds: most final,
// many sent and awaiting receipts, some queued and scheduled, and BENCH_SWEEP_OVERDUE (default
// 5,000) of each kind whose time is up. Then it prints each sweep's plan (EXPLAIN ANALYZE of its
// read) and times real passes of @sms/message-state's expireOverdue and timeOutReceipts: every
// pass that fails a full batch of 1,000 messages (history, events, refunds), and the pass that
// finds nothing left, which is what the scheduler runs every second most of the time.
// Target: under 1 s per pass.
import pg from "pg";
import { DATABASE_SESSION_OPTIONS } from "@sms/db";
// Relative: the sweeps as the scheduler runs them, without a workspace dependency of the bench.
import {
  expireOverdue,
  OVERDUE_AWAITING,
  OVERDUE_SENT,
  timeOutReceipts,
} from "../packages/message-state/src";
import { freshDatabase } from "./support";

const ROWS = Number(process.env.BENCH_SWEEP_ROWS ?? 5_000_000);
const OVERDUE = Number(process.env.BENCH_SWEEP_OVERDUE ?? 5_000);
const BATCH = 1000;
const GRACE_SECONDS = 3600;
const CHUNK = 500_000;

/**
 * One chunk of synthetic messages, row n of the table: 60 % delivered, 10 % failed, 20 % sent,
 * 8 % queued, 2 % scheduled; validity ends from a day in the past (final ones) to two days ahead
 * (waiting ones), so the sweeps' indexes hold millions of entries that are not due.
 */
const INSERT_CHUNK = `
INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                      status, scheduled_at, created_at, updated_at, sent_at, delivered_at, failed_at, expires_at)
SELECT 'msg_bench' || lpad(n::text, 17, '0'), $1, '+1415' || lpad((n % 10000000)::text, 7, '0'), 'ACME',
       'bench', 'GSM7', 1, 1, s.status::"MessageStatus",
       CASE WHEN s.status = 'scheduled' THEN now() + interval '1 day' END,
       now() - interval '1 day', now() - interval '1 day',
       CASE WHEN s.status IN ('sent', 'delivered') THEN now() - interval '1 day' END,
       CASE WHEN s.status = 'delivered' THEN now() - interval '23 hours' END,
       CASE WHEN s.status = 'failed' THEN now() - interval '23 hours' END,
       CASE WHEN s.status IN ('delivered', 'failed') THEN now() - interval '1 day' + interval '48 hours'
            WHEN s.status = 'scheduled' THEN now() + interval '3 days'
            ELSE now() + make_interval(secs => 60 + (n % 172800)) END
FROM generate_series($2::bigint, $3::bigint) AS n,
     LATERAL (SELECT CASE WHEN n % 100 < 60 THEN 'delivered' WHEN n % 100 < 70 THEN 'failed'
                          WHEN n % 100 < 90 THEN 'sent' WHEN n % 100 < 98 THEN 'queued' ELSE 'scheduled' END AS status) AS s`;

async function makeRows(db: pg.Client, accountId: string): Promise<void> {
  const started = Date.now();
  await db.query("SET synchronous_commit = off");
  for (let from = 1; from <= ROWS; from += CHUNK) {
    await db.query(INSERT_CHUNK, [accountId, from, Math.min(from + CHUNK - 1, ROWS)]);
    process.stdout.write(`\r  ${Math.min(from + CHUNK - 1, ROWS).toLocaleString()} rows`);
  }
  // Due now: OVERDUE queued, scheduled and sent messages, each sent one with its segment at the
  // carrier (so the refund rule finds it, as it would), its validity plus the grace over.
  await db.query(
    `UPDATE messages SET expires_at = now() - make_interval(secs => 1 + (substr(id, 10)::bigint % 3600))
     WHERE id IN (SELECT id FROM messages WHERE status IN ('queued', 'scheduled') ORDER BY id LIMIT $1)`,
    [OVERDUE * 2],
  );
  const { rows } = await db.query<{ id: string }>(
    `UPDATE messages SET expires_at = now() - make_interval(secs => $2 + 1 + (substr(id, 10)::bigint % 3600))
     WHERE id IN (SELECT id FROM messages WHERE status = 'sent' ORDER BY id LIMIT $1) RETURNING id`,
    [OVERDUE, GRACE_SECONDS],
  );
  await db.query(
    `INSERT INTO message_segments (message_id, seq, status, carrier_id, carrier_message_id, submitted_at)
     SELECT id, 1, 'submitted', NULL, 'c-' || id, now() - interval '1 day' FROM unnest($1::text[]) AS id`,
    [rows.map((row) => row.id)],
  );
  await db.query("VACUUM ANALYZE messages");
  await db.query("VACUUM ANALYZE message_segments");
  console.log(
    `\r  ${ROWS.toLocaleString()} messages made in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

async function printPlan(db: pg.Client, name: string, text: string, values: unknown[]): Promise<void> {
  await db.query("BEGIN");
  try {
    const { rows } = await db.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
    console.log(`\n${name}: the read of one pass`);
    for (const row of rows) console.log(`  ${row["QUERY PLAN"]}`);
  } finally {
    await db.query("ROLLBACK");
  }
}

async function timePasses(name: string, pass: () => Promise<{ failed: number }>): Promise<number> {
  const times: number[] = [];
  let failed = 0;
  for (;;) {
    const started = process.hrtime.bigint();
    const result = await pass();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    failed += result.failed;
    if (result.failed < BATCH) break;
  }
  const full = times.slice(0, -1).sort((a, b) => a - b);
  const empty = times[times.length - 1]!;
  const ms = (value: number | undefined) => (value === undefined ? "-" : `${value.toFixed(1)} ms`);
  console.log(
    `\n${name}: ${failed.toLocaleString()} messages failed in ${times.length} passes; ` +
      `a full pass (${BATCH}): median ${ms(full[Math.floor(full.length / 2)])}, max ${ms(full[full.length - 1])}; ` +
      `the last pass (${(failed % BATCH).toLocaleString()} left): ${ms(empty)}`,
  );
  return Math.max(...times);
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const url = await freshDatabase(base, "sms_bench_sweeps");
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const accountId = "acc_bench_sweeps";
  await db.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'bench', 0, now())", [
    accountId,
  ]);
  console.log(
    `sweeps on ${ROWS.toLocaleString()} messages (${OVERDUE.toLocaleString()} overdue of each kind)`,
  );
  await makeRows(db, accountId);
  await printPlan(db, "validity sweep", OVERDUE_AWAITING, [BATCH]);
  await printPlan(db, "receipt-timeout sweep", OVERDUE_SENT, [BATCH, GRACE_SECONDS]);

  const pool = new pg.Pool({ connectionString: url, max: 2, options: DATABASE_SESSION_OPTIONS });
  const worst = Math.max(
    await timePasses("validity sweep", () => expireOverdue(pool, { limit: BATCH })),
    await timePasses("receipt-timeout sweep", () =>
      timeOutReceipts(pool, { graceSeconds: GRACE_SECONDS, limit: BATCH }),
    ),
  );
  // The steady state: nothing is due, as on most of the scheduler's ticks.
  const idle = process.hrtime.bigint();
  await expireOverdue(pool, { limit: BATCH });
  await timeOutReceipts(pool, { graceSeconds: GRACE_SECONDS, limit: BATCH });
  console.log(
    `\nboth sweeps with nothing due: ${(Number(process.hrtime.bigint() - idle) / 1e6).toFixed(1)} ms`,
  );
  const balance = (await db.query("SELECT balance FROM accounts WHERE id = $1", [accountId])).rows[0].balance;
  console.log(`credits refunded (expired before a carrier): ${balance}`);
  console.log(
    `\nslowest pass: ${worst.toFixed(1)} ms (target < 1000 ms): ${worst < 1000 ? "met" : "MISSED"}`,
  );
  await pool.end();
  await db.end();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
