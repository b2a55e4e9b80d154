import type pg from "pg";
import { createDatabase, listPartitions, type Database } from "@sms/db";
import { createTestWorld, partitionedSince, type TestWorld } from "@sms/testing";
import { applyReceipt, lockCarrierMessageId, matchPendingReceiptsFor, sweepUnmatched } from "../src";
import { insertAccount, insertMessage, insertSegment, insertSentMessage } from "./fixtures";

/*
 * Today's partition of carrier_receipts fills up during the day (docs/decisions.md#partitions).
 * A prepared statement run five times on a connection may switch to a cached generic plan, which
 * keeps the scan it chose for today while today was nearly empty: a sequential one, then run on a
 * day of a million rows. The look-ups are sent unnamed so that each run is planned from the day's
 * size. Each test runs one public function on ONE connection past that point, fills today with
 * unmatched receipts (no ANALYZE afterwards, as when autovacuum has not come by yet), runs it
 * again and reads today's scan counters: read by index, never sequentially.
 */
const DAY = 86_400_000;
/** Enough runs for PostgreSQL to cache a generic plan: it plans the first five for their values. */
const RUNS_BEFORE_FILL = 7;
const FILL = 50_000;
const BACKLOG_CARRIER = "car_backlog";

let world: TestWorld;
let db: Database;
let pool: pg.Pool;
let accountId: string;

beforeEach(async () => {
  world = await createTestWorld();
  // The processes' own pool (its session settings), of one connection.
  db = createDatabase(world.databaseUrl, { poolSize: 1 });
  pool = db.pool;
  accountId = await insertAccount(pool);
  // A fresh database's first partition runs to the day after tomorrow: give today a day of its own.
  const now = Date.now();
  await partitionedSince(pool, ["carrier_receipts"], new Date(now - 4 * DAY), new Date(now + 2 * DAY));
  // An ANALYZE would make PostgreSQL plan again: the tests decide when statistics are taken.
  for (const { name } of await listPartitions(pool, "carrier_receipts"))
    await pool.query(`ALTER TABLE ${name} SET (autovacuum_enabled = off)`);
});

afterEach(async () => {
  await db.close();
  await world.destroy();
});

/** Fills the current day with unmatched receipts of another carrier; returns its partition. */
async function fillToday(): Promise<string> {
  await pool.query(
    `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, receipt_key)
     SELECT $1, 'backlog-' || n, 'delivered', 'unmatched', 'backlog-' || n FROM generate_series(1, $2::int) AS n`,
    [BACKLOG_CARRIER, FILL],
  );
  const { rows } = await pool.query<{ day: string }>(
    "SELECT tableoid::regclass::text AS day FROM carrier_receipts WHERE carrier_id = $1 LIMIT 1",
    [BACKLOG_CARRIER],
  );
  return rows[0]!.day;
}

/** The scans of a partition so far, this connection's own included. */
async function scansOf(partition: string): Promise<{ sequential: number; index: number }> {
  // A backend reports its statistics when it goes idle, at most once a second: at once, here.
  await pool.query("SELECT pg_stat_force_next_flush()");
  const { rows } = await pool.query<{ seq_scan: string; idx_scan: string }>(
    "SELECT seq_scan, idx_scan FROM pg_stat_user_tables WHERE relid = $1::regclass",
    [partition],
  );
  return { sequential: Number(rows[0]!.seq_scan), index: Number(rows[0]!.idx_scan) };
}

async function expectReadByIndex(partition: string, run: () => Promise<void>): Promise<void> {
  const before = await scansOf(partition);
  await run();
  const after = await scansOf(partition);
  expect(after.sequential - before.sequential).toBe(0);
  expect(after.index - before.index).toBeGreaterThan(0);
}

describe("today's partition, filled after the statements ran on a nearly empty day", () => {
  it("matchPendingReceiptsFor still looks the receipt up by index", async () => {
    const carrierId = "car_1";
    /** A receipt that beat its submit response: recorded unmatched, its segment without an id yet. */
    const earlyReceipt = async (carrierMessageId: string) => {
      const messageId = await insertMessage(pool, { accountId, status: "queued" });
      await insertSegment(pool, { messageId, seq: 1, carrierId });
      const receipt = await applyReceipt(pool, { carrierId, carrierMessageId, state: "delivered" });
      expect(receipt.outcome).toBe("unmatched");
      return messageId;
    };
    /** What the dispatcher does with the submit response: records the id, matches in the same transaction. */
    const recordSubmitted = async (messageId: string, carrierMessageId: string) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await lockCarrierMessageId(client, carrierId, carrierMessageId);
        await client.query(
          `UPDATE message_segments SET status = 'submitted', carrier_message_id = $2, submitted_at = now()
           WHERE message_id = $1 AND seq = 1`,
          [messageId, carrierMessageId],
        );
        const matched = await matchPendingReceiptsFor(client, [{ carrierId, receiptKey: carrierMessageId }]);
        await client.query("COMMIT");
        expect(matched).toEqual([expect.objectContaining({ outcome: "applied", messageId })]);
      } finally {
        client.release();
      }
    };

    const early: string[] = [];
    for (let i = 0; i < RUNS_BEFORE_FILL; i++) early.push(await earlyReceipt(`early-${i}`));
    await pool.query("ANALYZE carrier_receipts");
    for (const [i, messageId] of early.entries()) await recordSubmitted(messageId, `early-${i}`);

    const today = await fillToday();
    const last = await earlyReceipt("early-last");
    await expectReadByIndex(today, () => recordSubmitted(last, "early-last"));
  });

  it("sweepUnmatched still finds and settles its receipts by index", async () => {
    const carrierId = "car_2";
    /** An unmatched receipt two minutes old whose segment has its id by now. */
    const sweepable = async (carrierMessageId: string) => {
      await insertSentMessage(pool, { accountId, carrierId, carrierMessageIds: [carrierMessageId] });
      await pool.query(
        `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, receipt_key, received_at)
         VALUES ($1, $2, 'delivered', 'unmatched', $2, now() - interval '2 minutes')`,
        [carrierId, carrierMessageId],
      );
    };
    // The backlog is younger than a minute: not the sweep's yet, but a sequential scan reads it all.
    const sweep = async () =>
      expect(await sweepUnmatched(pool, { olderThanMs: 60_000 })).toEqual({
        examined: 1,
        applied: 1,
        ignored: 0,
      });

    await pool.query("ANALYZE carrier_receipts");
    for (let i = 0; i < RUNS_BEFORE_FILL; i++) {
      await sweepable(`late-${i}`);
      await sweep();
    }

    const today = await fillToday();
    await sweepable("late-last");
    await expectReadByIndex(today, sweep);
  });
});
