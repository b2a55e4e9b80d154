import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { insertAccount } from "../test/fixtures";
import { acceptedEventPayload, STATUS_EVENT_PAYLOAD_SQL } from "./status-event";

describe("the status event's payload: one definition, two writers", () => {
  let world: TestWorld;
  let db: Database;
  let accountId: string;

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 2 });
    accountId = await insertAccount(db.pool, 0);
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  /** What a status change would store for the row as it is, were it just queued from nothing. */
  async function builtInSql(messageId: string): Promise<unknown> {
    const { rows } = await db.pool.query(
      `SELECT ${STATUS_EVENT_PAYLOAD_SQL} AS payload
       FROM (SELECT m.*, NULL::"MessageStatus" AS previous_status FROM messages AS m WHERE id = $1) AS upd`,
      [messageId],
    );
    return rows[0].payload;
  }

  it.each([
    ["with a client_ref", "order-17"],
    ["without one", null],
  ])(
    "the acceptance's message.queued payload is what the status change statement builds (%s)",
    async (_, clientRef) => {
      const id = newId("msg");
      await db.pool.query(
        `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged, status, client_ref)
       VALUES ($1, $2, '+14155550100', 'ACME', 'secret text', 'GSM7', 2, 2, 'queued', $3)`,
        [id, accountId, clientRef],
      );
      const accepted = acceptedEventPayload({
        to: "+14155550100",
        senderId: "ACME",
        segments: 2,
        batchId: null,
        otpId: null,
        clientRef,
      });
      // Through jsonb both ways, as outbox_events stores them.
      const { rows } = await db.pool.query("SELECT $1::jsonb AS payload", [JSON.stringify(accepted)]);
      expect(rows[0].payload).toEqual(await builtInSql(id));
      expect(JSON.stringify(accepted)).not.toContain("secret text");
    },
  );
});
