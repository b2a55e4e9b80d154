import type pg from "pg";
import { listPartitions } from "@sms/db";
import { dueByIdBound, PROMOTE_STATEMENTS, waitingSinceIdBound } from "@sms/message-state";
import { createTestWorld, readsOf, type TestWorld } from "@sms/testing";
import { RECONCILER_STATEMENTS } from "./reconciler";

/*
 * The scheduler's two reads of messages by status: due scheduled messages and queued ones no
 * job holds. Each must go through a partial index that holds only messages in that status
 * (docs/database.md#indexes), not through an index of every message, nor a scan: at ten
 * million messages a day, nearly all of them delivered or failed.
 */
let world: TestWorld;
let pool: pg.Pool;

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(2);
  await pool.query(`INSERT INTO accounts (id, name, updated_at) VALUES ('acc_1', 'a', now())`);
  // 30,000 messages: 1 in 100 scheduled (half of them due), 1 in 10 queued, the rest final. No
  // more than ANALYZE's sample of 30,000 rows, so it reads them all and every run plans alike; a
  // random sample once made the queued page a bitmap read and a sort, at a cost within a hair of
  // the index's. With 3,000 queued, a page of 50 is the small part it is in production.
  await pool.query(
    `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                           status, scheduled_at, created_at, updated_at)
     SELECT 'msg_' || lpad(n::text, 26, '0'), 'acc_1', '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1,
            (CASE WHEN n % 100 = 1 THEN 'scheduled' WHEN n % 100 BETWEEN 2 AND 11 THEN 'queued'
                  WHEN n % 100 = 12 THEN 'failed' ELSE 'delivered' END)::"MessageStatus",
            CASE WHEN n % 100 = 1 THEN now() + make_interval(secs => 15000 - n) END,
            now() - make_interval(secs => 30000 - n), now() - make_interval(secs => 30000 - n)
     FROM generate_series(1, 30000) AS n`,
  );
  await pool.query("ANALYZE messages");
});
afterAll(() => world.destroy());

it("due scheduled messages are read through the index of scheduled messages alone", async () => {
  const legacy = (await listPartitions(pool, "messages")).find((p) => p.name === "messages_legacy")!;
  const reads = await readsOf(pool, PROMOTE_STATEMENTS.LOCK_DUE, [
    null,
    1000,
    dueByIdBound(),
    waitingSinceIdBound(),
    legacy.toBound,
  ]);
  // The weeks not due yet are not read at all (docs/decisions.md#partitions); the seed is all in
  // the partition of the rows from before the conversion.
  expect(reads.filter((read) => read.table === "messages")).toEqual([
    { table: "messages", partition: "messages_legacy", via: "messages_scheduled_due_idx" },
  ]);
});

it("the reconciler pages through queued messages in index order, without sorting them", async () => {
  const firstPage = [1_000, null, null, 50, dueByIdBound()];
  const nextPage = [
    1_000,
    new Date(Date.now() - 26_000_000),
    "msg_" + "04002".padStart(26, "0"),
    50,
    dueByIdBound(),
  ];
  for (const values of [firstPage, nextPage]) {
    const reads = await readsOf(pool, RECONCILER_STATEMENTS.STALE_QUEUED, values);
    expect(reads).toEqual([
      { table: "messages", partition: "messages_legacy", via: "messages_queued_since_idx" },
    ]);
  }
  const { rows } = await pool.query(`EXPLAIN ${RECONCILER_STATEMENTS.STALE_QUEUED}`, firstPage);
  expect(rows.map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"]).join("\n")).not.toMatch(/Sort/);
});
