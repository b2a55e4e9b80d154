import { readFileSync } from "node:fs";
import path from "node:path";
import { createDatabase, type Database } from "@sms/db";
import { insertAccount } from "@sms/message-state/test/fixtures";
import { createTestWorld, type TestWorld } from "@sms/testing";

// The migration that removes the payload copies deliveries held before the body was read from
// the event row, run on deliveries written the old way (each with its copy).
const MIGRATION = readFileSync(
  path.join(
    __dirname,
    "../../../prisma/migrations/20261127090400_webhook_delivery_payload_copies_dropped/migration.sql",
  ),
  "utf8",
);

describe("migration 20261127090400: payload copies of existing deliveries (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;
  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 2 });
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  it("drops the copy of succeeded deliveries whose event row exists, in batches, and keeps every other", async () => {
    const accountId = await insertAccount(db.pool);
    // 12,001 events: more than two batches of 5,000.
    await db.pool.query(
      `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
       SELECT 'evt_' || lpad(i::text, 26, '0'), $1, 'msg_' || lpad(i::text, 26, '0'), 'message.failed', 2, '{"status": "failed"}'
       FROM generate_series(1, 12001) AS i`,
      [accountId],
    );
    // As the relay wrote them before: a copy in each; all succeeded but two.
    await db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status, attempts)
       SELECT id, account_id, message_id, type, jsonb_build_object('event', type, 'copy', true), 'succeeded', 1
       FROM outbox_events WHERE account_id = $1`,
      [accountId],
    );
    const { rows: two } = await db.pool.query<{ event_id: string }>(
      "SELECT event_id FROM webhook_deliveries WHERE account_id = $1 ORDER BY event_id LIMIT 2",
      [accountId],
    );
    await db.pool.query("UPDATE webhook_deliveries SET status = 'pending' WHERE event_id = $1", [
      two[0]!.event_id,
    ]);
    await db.pool.query("UPDATE webhook_deliveries SET status = 'failed' WHERE event_id = $1", [
      two[1]!.event_id,
    ]);
    // A succeeded delivery whose event row is gone: its copy is all there is.
    await db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status)
       VALUES ('evt_01KZZZZZZZZZZZZZZZZZZZZZZZ', $1, 'msg_gone', 'message.failed', '{"copy": true}', 'succeeded')`,
      [accountId],
    );

    await db.pool.query(MIGRATION);

    const { rows } = await db.pool.query<{ status: string; copies: string; total: string }>(
      `SELECT status::text, count(*) FILTER (WHERE payload IS NOT NULL) AS copies, count(*) AS total
       FROM webhook_deliveries WHERE account_id = $1 GROUP BY status ORDER BY status::text`,
      [accountId],
    );
    expect(rows).toEqual([
      { status: "failed", copies: "1", total: "1" },
      { status: "pending", copies: "1", total: "1" },
      { status: "succeeded", copies: "1", total: "12000" },
    ]);
    const { rows: kept } = await db.pool.query(
      "SELECT event_id FROM webhook_deliveries WHERE status = 'succeeded' AND payload IS NOT NULL",
    );
    expect(kept).toEqual([{ event_id: "evt_01KZZZZZZZZZZZZZZZZZZZZZZZ" }]);
  }, 120_000);
});
