import crypto from "node:crypto";
import { encodeUlid } from "@sms/ids";
import { metricValue } from "@sms/metrics";
import { waitFor } from "@sms/testing";
import { createHarness, type Harness } from "../../test/harness";

describe("retention in the scheduler (real PostgreSQL and Redis)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("deletes a final message past retention on its own loop, and keeps a young one", async () => {
    const old = new Date(Date.now() - 91 * 86_400_000);
    const oldId = `msg_${encodeUlid(old.getTime(), crypto.randomBytes(10))}`;
    const [young] = await h.insertScheduled(new Date(Date.now() + 86_400_000));
    await h.db.pool.query(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, created_at, updated_at)
       VALUES ($1, $2, '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, 'delivered', $3, $3)`,
      [oldId, h.accountId, old],
    );
    await h.db.pool.query(
      "INSERT INTO message_events (message_id, sequence, status) VALUES ($1, 1, 'delivered')",
      [oldId],
    );
    const scheduler = await h.start({ RETENTION_INTERVAL_MS: "100" });
    await waitFor(
      async () => (await h.db.pool.query("SELECT 1 FROM messages WHERE id = $1", [oldId])).rowCount === 0,
      {
        what: "the old message deleted",
      },
    );
    expect(await h.statusOf(young!)).toBe("scheduled");
    await waitFor(
      async () => (await metricValue(scheduler.metrics.retentionDeleted, { table: "messages" })) === 1,
      {
        what: "the deletion counted",
      },
    );
    expect(await metricValue(scheduler.metrics.retentionDeleted, { table: "message_events" })).toBe(1);
    expect(await metricValue(scheduler.metrics.retentionPasses)).toBeGreaterThanOrEqual(1);
  });
});
