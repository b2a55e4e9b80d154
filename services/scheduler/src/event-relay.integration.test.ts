import { waitFor } from "@sms/testing";
import { createHarness, type Harness } from "../test/harness";

describe("scheduler's event relay (real PostgreSQL, Redis and BullMQ)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("publishes the message.queued event of a promoted message as a pending webhook delivery", async () => {
    await h.db.pool.query(
      "INSERT INTO webhook_endpoints (account_id, url, secret_sealed) VALUES ($1, 'https://example.com/hooks', 'v1.x.y.z')",
      [h.accountId],
    );
    const [id] = await h.insertScheduled(new Date(Date.now() - 1000));
    await h.start({ SCHEDULER_INTERVAL_MS: "100", EVENT_RELAY_IDLE_MS: "20" });
    await waitFor(
      async () =>
        (await h.db.pool.query("SELECT 1 FROM webhook_deliveries WHERE message_id = $1", [id])).rowCount ===
        1,
      { what: "the webhook delivery of message.queued" },
    );
    const { rows } = await h.db.pool.query(
      "SELECT d.status::text, d.event_type, o.payload->>'status' AS status_in_payload, d.payload IS NULL AS body_from_event, NOT EXISTS (SELECT 1 FROM outbox_pending p WHERE p.event_id = o.id) AS published FROM webhook_deliveries d JOIN events o ON o.id = d.event_id WHERE d.message_id = $1",
      [id],
    );
    expect(rows).toEqual([
      {
        status: "pending",
        event_type: "message.queued",
        status_in_payload: "queued",
        body_from_event: true,
        published: true,
      },
    ]);
  });
});
