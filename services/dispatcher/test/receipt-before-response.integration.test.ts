import { createDatabase, type Database } from "@sms/db";
import { insertAccount, insertMessage } from "@sms/message-state/test/fixtures";
import { applyReceipts } from "@sms/carrier-receipts";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { markSubmitting, recordSubmitted } from "../src/segments.sql";

let world: TestWorld;
let db: Database;
beforeAll(async () => {
  world = await createTestWorld();
  db = createDatabase(world.databaseUrl, { poolSize: 4 });
  await db.pool.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, updated_at)
     VALUES ('fast', 'fast carrier', '127.0.0.1', 2776, 'platform', 'platform', now())`,
  );
});
afterAll(async () => {
  await db.close();
  await world.destroy();
});

// The carrier's receipt can reach dlr-ingest before its submit_sm_resp reaches us: dlr-ingest
// keeps it unmatched, and the dispatcher applies it when it records the segment's id.
it("a receipt that beat its submit response still leaves the history queued → sent → delivered", async () => {
  const accountId = await insertAccount(db.pool);
  const messageId = await insertMessage(db.pool, { accountId });
  expect(await markSubmitting(db.pool, [{ messageId, seq: 1, carrierId: "fast" }], "test")).toEqual([true]);
  const [early] = await applyReceipts(db.pool, [
    { carrierId: "fast", carrierMessageId: "C-1", state: "delivered" },
  ]);
  expect(early).toMatchObject({ outcome: "unmatched" });

  await recordSubmitted(db.pool, [
    {
      messageId,
      seq: 1,
      carrierId: "fast",
      carrierMessageId: "C-1",
      receiptKey: "C-1",
      completesMessage: true,
    },
  ]);

  const { rows } = await db.pool.query<{ status: string }>(
    "SELECT status::text FROM message_events WHERE message_id = $1 ORDER BY sequence",
    [messageId],
  );
  expect(rows.map((row) => row.status)).toEqual(["queued", "sent", "delivered"]);
  const message = await db.pool.query(
    "SELECT status::text, sent_at, delivered_at FROM messages WHERE id = $1",
    [messageId],
  );
  expect(message.rows[0]).toMatchObject({ status: "delivered", sent_at: expect.any(Date) });
});
