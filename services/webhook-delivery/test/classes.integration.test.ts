import { createLogger } from "@sms/logger";
import {
  createWebhookDeliverProducer,
  openQueue,
  WEBHOOK_QUEUES,
  type WebhookClass,
  type WebhookDeliverJob,
} from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { waitFor } from "@sms/testing";
import { startWebhookReconciler } from "../src/reconciler";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

/**
 * Webhook classes (docs/fairness.md#lanes): a message sent high has its webhooks on a queue of their
 * own, and so does a bulk message, worked beside every other event with slots of its own.
 */
let w: WebhookWorld;
let connection: Redis;
const receivers: Receiver[] = [];

beforeAll(async () => {
  w = await startWebhookWorld();
  connection = createRedis(w.world.redisUrl, "queue");
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  connection.disconnect();
  await w.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const queueContext = () => ({ connection, prefix: w.world.redisPrefix });

async function jobsOf(webhookClass: WebhookClass): Promise<WebhookDeliverJob[]> {
  const queue = openQueue<WebhookDeliverJob>(queueContext(), WEBHOOK_QUEUES[webhookClass]);
  const jobs = await queue.getJobs(["waiting", "delayed", "active", "prioritized"]);
  await queue.close();
  return jobs.map((job) => job.data);
}

describe("webhook classes (real PostgreSQL, Redis, BullMQ, HTTP)", () => {
  it("each class's worker sends its own class's webhooks, their retries included: high, then standard (with bulk)", async () => {
    const r = await receiver();
    // Every event's first attempt fails: its retry must come back to the lane that sent it.
    const tried = new Set<string>();
    r.answer = (webhook, res) => {
      const first = !tried.has(webhook.id);
      tried.add(webhook.id);
      res.writeHead(first ? 503 : 204).end();
    };
    const { accountId } = await w.account(r.url);
    const [otp] = await w.emitEvents(accountId, 1, { priority: "high" });
    const [single] = await w.emitEvents(accountId, 1);
    const [campaign] = await w.emitEvents(accountId, 1, { priority: "bulk" });
    expect((await jobsOf("high")).map((job) => [job.high, job.bulk])).toEqual([[true, undefined]]);
    expect((await jobsOf("standard")).map((job) => [job.high, job.bulk])).toEqual([[undefined, undefined]]);
    expect((await jobsOf("bulk")).map((job) => [job.high, job.bulk])).toEqual([[undefined, true]]);
    const sentOf = (id: string | undefined) =>
      r.received.filter((hook) => hook.body.message_id === id).length;

    const lane = await w.start({ WEBHOOK_CLASSES: "high" });
    await waitFor(() => sentOf(otp) === 2, { what: "the high message's webhook and its retry" });
    expect(r.received.map((hook) => hook.body.message_id)).toEqual([otp, otp]);
    expect(await jobsOf("standard")).toHaveLength(1);
    expect(await jobsOf("bulk")).toHaveLength(1);
    await lane.stop();
    // `standard` works bulk's queue too: a replica set so before bulk had its own takes every event it took.
    const standard = await w.start({ WEBHOOK_CLASSES: "standard" });
    await waitFor(() => sentOf(single) === 2 && sentOf(campaign) === 2, {
      what: "the single and the bulk message's webhooks and their retries",
    });
    await standard.stop();
    // The receiver has the POST before the worker records its answer: wait for the record.
    await waitFor(async () => (await w.deliveries(accountId)).every((d) => d.status !== "pending"), {
      what: "every delivery recorded",
    });
    const deliveries = await w.deliveries(accountId);
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([
      ["succeeded", 2],
      ["succeeded", 2],
      ["succeeded", 2],
    ]);
  });

  it("a campaign's webhooks to a slow endpoint fill the bulk slots only: another account's single send is sent meanwhile", async () => {
    const slow = await receiver();
    const held: Array<() => void> = [];
    slow.answer = (_webhook, res) => held.push(() => res.writeHead(204).end());
    const fast = await receiver();
    const campaigner = await w.account(slow.url);
    const single = await w.account(fast.url);
    await w.emitEvents(campaigner.accountId, 3, { priority: "bulk" });
    const [mine] = await w.emitEvents(single.accountId, 1);
    // One slot a class: the campaign's job holds the bulk one while its endpoint does not answer.
    const worker = await w.start({ WEBHOOK_CLASSES: "standard", WEBHOOK_CONCURRENCY: "1" });
    await waitFor(() => held.length > 0, { what: "the campaign's first webhook" });
    await waitFor(() => fast.received.length === 1, {
      what: "the single send's webhook, beside the campaign's",
    });
    expect(fast.received[0]!.body.message_id).toBe(mine);
    // Still unanswered: the single send did not wait for the campaign's slot.
    expect(slow.received.length).toBeGreaterThan(0);
    expect(await w.deliveries(campaigner.accountId)).not.toContainEqual(
      expect.objectContaining({ status: "succeeded" }),
    );
    slow.answer = (_webhook, res) => res.writeHead(204).end();
    held.splice(0).forEach((answer) => answer());
    await waitFor(
      async () => (await w.deliveries(campaigner.accountId)).every((d) => d.status === "succeeded"),
      { what: "the campaign's webhooks", timeoutMs: 15_000 },
    );
    await worker.stop();
  });

  it("the reconciler queues an overdue delivery again on its class's queue", async () => {
    const r = await receiver();
    const { accountId } = await w.account(r.url);
    const [otp] = await w.emitEvents(accountId, 1, { priority: "high" });
    const [other] = await w.emitEvents(accountId, 1);
    const [campaign] = await w.emitEvents(accountId, 1, { priority: "bulk" });
    // Their jobs lost (a Redis flush) and the rows long overdue.
    for (const webhookClass of ["high", "standard", "bulk"] as const) {
      const queue = openQueue(queueContext(), WEBHOOK_QUEUES[webhookClass]);
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await w.db.pool.query(
      "UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 hour', claim = NULL WHERE account_id = $1",
      [accountId],
    );
    const { rows } = await w.db.pool.query<{ event_id: string; message_id: string }>(
      "SELECT event_id, message_id FROM webhook_deliveries WHERE account_id = $1",
      [accountId],
    );
    const eventOf = (messageId: string) => rows.find((row) => row.message_id === messageId)!.event_id;

    // No worker runs: the jobs stay where the reconciler put them.
    const producer = createWebhookDeliverProducer(queueContext());
    const reconciler = startWebhookReconciler({
      pool: w.db.pool,
      producer,
      logger: createLogger("webhook-test", "error"),
      staleMs: 1000,
      intervalMs: 3_600_000,
    });
    expect(await reconciler.runOnce()).toBe(3);
    await reconciler.stop();
    await producer.close();
    expect((await jobsOf("high")).flatMap((job) => job.eventIds)).toEqual([eventOf(otp!)]);
    expect((await jobsOf("standard")).flatMap((job) => job.eventIds)).toEqual([eventOf(other!)]);
    expect((await jobsOf("bulk")).flatMap((job) => job.eventIds)).toEqual([eventOf(campaign!)]);
  });

  it("with EVENT_RELAY_HIGH the lane turns a high message's event into its webhook itself; every other event waits for the scheduler's relay", async () => {
    const r = await receiver();
    const { accountId } = await w.account(r.url);
    // Status changes not relayed by the test: only the lane's own relay can publish them.
    const [other] = await w.emitEvents(accountId, 1, { relay: false });
    const [otp] = await w.emitEvents(accountId, 1, { priority: "high", relay: false });
    const lane = await w.start({
      WEBHOOK_CLASSES: "high",
      EVENT_RELAY_HIGH: "true",
      EVENT_RELAY_IDLE_MS: "20",
    });
    await waitFor(() => r.received.length === 1, { what: "the high message's webhook" });
    expect(r.received[0]!.body.message_id).toBe(otp);
    const { rows } = await w.db.pool.query<{ message_id: string }>("SELECT message_id FROM outbox_pending");
    expect(rows.map((row) => row.message_id)).toEqual([other]);
    await lane.stop();
    await w.relay();
    const queued = (await jobsOf("standard")).filter((job) => job.accountId === accountId);
    expect(queued.flatMap((job) => job.eventIds)).toHaveLength(1);
  });
});
