import type pg from "pg";
import { createDatabase, type Database } from "@sms/db";
import { insertAccount } from "@sms/message-state/test/fixtures";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { claimReceipts } from "./receipts.sql";

describe("claiming receipts (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;
  let accountId: string;

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 2 });
    accountId = await insertAccount(db.pool);
  });
  afterAll(async () => {
    await db?.close();
    await world?.destroy();
  });

  /** Receipts numbered 1…count; those in `later` are due a minute from now. */
  async function insertReceipts(count: number, later: number[] = []): Promise<void> {
    await db.pool.query(
      `INSERT INTO smpp_receipts (event_id, account_id, submit_id, source_addr, destination_addr, message_state, text, next_attempt_at)
       SELECT 'evt_' || n, $1, 'sub_' || n, '447911123456', 'ACME', 2, 'id:' || n || ' stat:DELIVRD',
              CASE WHEN n = ANY($3::int[]) THEN now() + interval '1 minute' ELSE now() END
       FROM generate_series(1, $2::int) AS n`,
      [accountId, count, later],
    );
  }

  afterEach(() => db.pool.query("DELETE FROM smpp_receipts"));

  it("takes the due receipts oldest first, skipping those not due, and pushes their next attempt ahead", async () => {
    await insertReceipts(6, [1, 3]);
    const claimed = await claimReceipts(db.pool, accountId, 3, 30_000);
    expect(claimed.map((r) => r.eventId).sort()).toEqual(["evt_2", "evt_4", "evt_5"]);
    expect(await claimReceipts(db.pool, accountId, 10, 30_000)).toEqual([
      expect.objectContaining({ eventId: "evt_6" }),
    ]);
    const { rows } = await db.pool.query<{ due: number }>(
      "SELECT count(*)::int AS due FROM smpp_receipts WHERE next_attempt_at <= now()",
    );
    expect(rows[0]!.due).toBe(0);
  });

  it("is a HOT update: the claim writes no index entry", async () => {
    await insertReceipts(50);
    const client = await db.pool.connect();
    // This backend's update counts not yet flushed to the statistics (earlier work included).
    const counts = async () => {
      const { rows } = await client.query<{ updated: string; hot: string }>(
        `SELECT pg_stat_get_xact_tuples_updated('smpp_receipts'::regclass) AS updated,
                pg_stat_get_xact_tuples_hot_updated('smpp_receipts'::regclass) AS hot`,
      );
      return { updated: Number(rows[0]!.updated), hot: Number(rows[0]!.hot) };
    };
    try {
      await client.query("BEGIN");
      const before = await counts();
      // claimReceipts only calls query(): a client keeps the claim in this transaction.
      const claimed = await claimReceipts(client as unknown as pg.Pool, accountId, 10, 30_000);
      expect(claimed).toHaveLength(10);
      const after = await counts();
      expect(after.updated - before.updated).toBe(10);
      expect(after.hot - before.hot).toBe(10);
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });
});
