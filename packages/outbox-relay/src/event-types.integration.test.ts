import crypto from "node:crypto";
import { Queue } from "bullmq";
import { createDatabase, type Database } from "@sms/db";
import { applyTransition, type MessageStatus } from "@sms/message-state";
import { insertAccount, insertMessage } from "@sms/message-state/test/fixtures";
import { createSmppReceiptProducer, createWebhookDeliverProducer, queuePrefix, QUEUES } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { WebhookEndpoints } from "@sms/webhooks";
import { relayOutbox, type RelayProducers } from "./index";

/** Event types per endpoint (docs/decisions.md#webhook-event-types): the relay's side. */
describe("outbox relay: only subscribed events become deliveries (real PostgreSQL, Redis, BullMQ)", () => {
  let world: TestWorld;
  let db: Database;
  let connection: Redis;
  let producers: RelayProducers;
  let endpoints: WebhookEndpoints;

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 4 });
    connection = createRedis(world.redisUrl, "queue");
    const context = { connection, prefix: world.redisPrefix };
    producers = {
      webhooks: createWebhookDeliverProducer(context),
      smppReceipts: createSmppReceiptProducer(context),
    };
    endpoints = new WebhookEndpoints(db.prisma, createSecretBox(crypto.randomBytes(32).toString("base64")), {
      allowLoopback: true,
      allowHttp: true,
    });
  });
  afterAll(async () => {
    await producers.webhooks.close();
    await producers.smppReceipts.close();
    connection.disconnect();
    await db.close();
    await world.destroy();
  });

  /** Every event id some queued webhook.deliver job names, whatever the job's shape (one id or a batch). */
  async function queuedEventIds(): Promise<string[]> {
    const name = QUEUES.webhookDeliver;
    const queue = new Queue(name, { connection, prefix: queuePrefix(world.redisPrefix, name) });
    const jobs = await queue.getJobs(["waiting", "delayed", "active", "prioritized"]);
    await queue.close();
    return jobs
      .flatMap((job) => (job.data.eventIds as string[] | undefined) ?? [job.data.eventId as string])
      .sort();
  }

  /** One message through `path`: an outbox event per move (scheduled → queued gives message.queued). */
  async function messageThrough(accountId: string, path: MessageStatus[]): Promise<string> {
    const id = await insertMessage(db.pool, { accountId, status: "scheduled" });
    for (const to of path) {
      const errorCode = to === "failed" ? "UNDELIVERABLE" : undefined;
      await applyTransition(db.pool, { messageId: id, to, at: new Date(), errorCode });
    }
    return id;
  }

  async function deliveries(accountId: string): Promise<{ event_id: string; event_type: string }[]> {
    const { rows } = await db.pool.query(
      "SELECT event_id, event_type FROM webhook_deliveries WHERE account_id = $1 ORDER BY event_type",
      [accountId],
    );
    return rows;
  }

  it("an endpoint subscribed to delivered and failed gets deliveries and jobs for those only; NULL gets every event", async () => {
    const finalOnly = await insertAccount(db.pool);
    const everything = await insertAccount(db.pool);
    await endpoints.register(finalOnly, "http://127.0.0.1:9/final", {
      eventTypes: ["message.delivered", "message.failed"],
    });
    await endpoints.register(everything, "http://127.0.0.1:9/all");
    for (const accountId of [finalOnly, everything]) {
      await messageThrough(accountId, ["queued", "sent", "delivered"]);
      await messageThrough(accountId, ["queued", "failed"]);
    }

    const result = await relayOutbox(db.pool, producers, { limit: 100 });
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
    const { rows: waiting } = await db.pool.query("SELECT count(*)::int AS n FROM outbox_pending");
    expect(waiting[0].n).toBe(0);
  });

  it("a change of subscription applies to the next claim; a list set with SQL is honoured as is", async () => {
    const accountId = await insertAccount(db.pool);
    await endpoints.register(accountId, "http://127.0.0.1:9/hooks");
    await db.pool.query(
      "UPDATE webhook_endpoints SET event_types = ARRAY['message.sent'] WHERE account_id = $1",
      [accountId],
    );
    await messageThrough(accountId, ["queued", "sent"]);
    await relayOutbox(db.pool, producers, { limit: 100 });
    expect((await deliveries(accountId)).map((d) => d.event_type)).toEqual(["message.sent"]);

    await endpoints.setEventTypes(accountId, null);
    await messageThrough(accountId, ["queued"]);
    await relayOutbox(db.pool, producers, { limit: 100 });
    expect((await deliveries(accountId)).map((d) => d.event_type)).toEqual([
      "message.queued",
      "message.sent",
    ]);
  });

  it("an event a disabled endpoint did not subscribe to is not even parked for replay", async () => {
    const accountId = await insertAccount(db.pool);
    await endpoints.register(accountId, "http://127.0.0.1:9/hooks", { eventTypes: ["message.failed"] });
    await endpoints.disable(accountId, "operator");
    await messageThrough(accountId, ["queued", "failed"]);
    await relayOutbox(db.pool, producers, { limit: 100 });
    const { rows } = await db.pool.query(
      "SELECT event_type, status::text FROM webhook_deliveries WHERE account_id = $1",
      [accountId],
    );
    expect(rows).toEqual([{ event_type: "message.failed", status: "failed" }]);
  });
});
