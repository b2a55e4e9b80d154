import { Queue } from "bullmq";
import { applyTransition, type MessageStatus } from "@sms/message-state";
import { insertAccount, insertMessage } from "@sms/message-state/test/fixtures";
import { queuePrefix, QUEUES } from "@sms/queues";
import { startRelayWorld, type RelayWorld } from "../test/relay-world";
import { relayOutbox } from "./index";

/** Event types per endpoint (docs/decisions.md#webhook-event-types): the relay's side. */
describe("outbox relay: only subscribed events become deliveries (real PostgreSQL, Redis, BullMQ)", () => {
  let w: RelayWorld;
  beforeAll(async () => {
    w = await startRelayWorld({ poolSize: 4 });
  });
  afterAll(() => w.close());

  /** Every event id some queued webhook.deliver job names, whatever the job's shape (one id or a batch). */
  async function queuedEventIds(): Promise<string[]> {
    const name = QUEUES.webhookDeliver;
    const queue = new Queue(name, {
      connection: w.connection,
      prefix: queuePrefix(w.world.redisPrefix, name),
    });
    const jobs = await queue.getJobs(["waiting", "delayed", "active", "prioritized"]);
    await queue.close();
    return jobs
      .flatMap((job) => (job.data.eventIds as string[] | undefined) ?? [job.data.eventId as string])
      .sort();
  }

  /** One message through `path`: an outbox event per move (scheduled → queued gives message.queued). */
  async function messageThrough(accountId: string, path: MessageStatus[]): Promise<string> {
    const id = await insertMessage(w.db.pool, { accountId, status: "scheduled" });
    for (const to of path) {
      const errorCode = to === "failed" ? "UNDELIVERABLE" : undefined;
      await applyTransition(w.db.pool, { messageId: id, to, at: new Date(), errorCode });
    }
    return id;
  }

  async function deliveries(accountId: string): Promise<{ event_id: string; event_type: string }[]> {
    const { rows } = await w.db.pool.query(
      "SELECT event_id, event_type FROM webhook_deliveries WHERE account_id = $1 ORDER BY event_type",
      [accountId],
    );
    return rows;
  }

  it("an endpoint subscribed to delivered and failed gets deliveries and jobs for those only; NULL gets every event", async () => {
    const finalOnly = await insertAccount(w.db.pool);
    const everything = await insertAccount(w.db.pool);
    await w.endpoints.register(finalOnly, "http://127.0.0.1:9/final", {
      eventTypes: ["message.delivered", "message.failed"],
    });
    await w.endpoints.register(everything, "http://127.0.0.1:9/all");
    for (const accountId of [finalOnly, everything]) {
      await messageThrough(accountId, ["queued", "sent", "delivered"]);
      await messageThrough(accountId, ["queued", "failed"]);
    }

    const result = await relayOutbox(w.db.pool, w.producers, { limit: 100 });
    // 5 events per account, all published; 2 + 5 of them became deliveries.
    expect(result).toMatchObject({ events: 10, webhooks: 7 });

    const final = await deliveries(finalOnly);
    expect(final.map((d) => d.event_type)).toEqual(["message.delivered", "message.failed"]);
    const all = await deliveries(everything);
    expect(all.map((d) => d.event_type)).toEqual([
      "message.delivered",
      "message.failed",
      "message.queued",
      "message.queued",
      "message.sent",
    ]);
    // No job for what nobody subscribed to, and no event left waiting in the outbox.
    expect(await queuedEventIds()).toEqual([...final, ...all].map((d) => d.event_id).sort());
    const { rows: waiting } = await w.db.pool.query("SELECT count(*)::int AS n FROM outbox_pending");
    expect(waiting[0].n).toBe(0);
  });

  it("a change of subscription applies to the next claim; a list set with SQL is honoured as is", async () => {
    const accountId = await insertAccount(w.db.pool);
    await w.endpoints.register(accountId, "http://127.0.0.1:9/hooks");
    await w.db.pool.query(
      "UPDATE webhook_endpoints SET event_types = ARRAY['message.sent'] WHERE account_id = $1",
      [accountId],
    );
    await messageThrough(accountId, ["queued", "sent"]);
    await relayOutbox(w.db.pool, w.producers, { limit: 100 });
    expect((await deliveries(accountId)).map((d) => d.event_type)).toEqual(["message.sent"]);

    await w.endpoints.setEventTypes(accountId, null);
    await messageThrough(accountId, ["queued"]);
    await relayOutbox(w.db.pool, w.producers, { limit: 100 });
    expect((await deliveries(accountId)).map((d) => d.event_type)).toEqual([
      "message.queued",
      "message.sent",
    ]);
  });

  it("an event a disabled endpoint did not subscribe to is not even parked for replay", async () => {
    const accountId = await insertAccount(w.db.pool);
    await w.endpoints.register(accountId, "http://127.0.0.1:9/hooks", { eventTypes: ["message.failed"] });
    await w.endpoints.disable(accountId, "operator");
    await messageThrough(accountId, ["queued", "failed"]);
    await relayOutbox(w.db.pool, w.producers, { limit: 100 });
    const { rows } = await w.db.pool.query(
      "SELECT event_type, status::text FROM webhook_deliveries WHERE account_id = $1",
      [accountId],
    );
    expect(rows).toEqual([{ event_type: "message.failed", status: "failed" }]);
  });
});
