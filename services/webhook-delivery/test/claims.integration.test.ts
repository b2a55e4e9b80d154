import { createWebhookDeliverProducer, openQueue, QUEUES, type WebhookDeliverProducer } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { waitFor } from "@sms/testing";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

let w: WebhookWorld;
let r: Receiver;
let connection: Redis;
let producer: WebhookDeliverProducer;
const context = () => ({ connection, prefix: w.world.redisPrefix });

beforeAll(async () => {
  w = await startWebhookWorld();
  r = await startReceiver();
  connection = createRedis(w.world.redisUrl, "queue");
  producer = createWebhookDeliverProducer(context());
});
afterAll(async () => {
  await w.close();
  await r.close();
  await producer.close();
  connection.disconnect();
});

describe("batch claims (real PostgreSQL, Redis, BullMQ, HTTP)", () => {
  it("sends each delivery once when duplicate jobs for the same rows run at the same time", async () => {
    let open = 0;
    let mostOpen = 0;
    r.answer = (_hook, res) => {
      mostOpen = Math.max(mostOpen, ++open);
      setTimeout(() => {
        open--;
        res.writeHead(204).end();
      }, 50);
    };
    const { accountId } = await w.account(r.url);
    // Slots for every job at once, so the duplicates really race the relay's job for the rows.
    await w.start({ WEBHOOK_ENDPOINT_CONCURRENCY: "400" });
    await w.emitEvents(accountId, 100);
    const deliveries = (await w.deliveries(accountId)).map((d) => ({ eventId: d.event_id, accountId }));
    // As a reconciler re-queue and two replays would: other jobs, other claims, the same rows.
    await Promise.all([1, 2, 3].map(() => producer.enqueue(deliveries)));
    await waitFor(async () => (await w.deliveries(accountId)).every((d) => d.status === "succeeded"), {
      what: "every delivery succeeded",
      timeoutMs: 20_000,
    });
    // Duplicates that lost the claim find the rows done and send nothing later either.
    const queue = openQueue(context(), QUEUES.webhookDeliver);
    await waitFor(
      async () => {
        const counts = await queue.getJobCounts("waiting", "delayed", "active", "prioritized");
        return Object.values(counts).every((count) => count === 0);
      },
      { what: "every job finished, the duplicates too", timeoutMs: 20_000 },
    );
    await queue.close();
    expect(r.ids().size).toBe(100);
    expect(r.received).toHaveLength(100);
    expect(mostOpen).toBeGreaterThan(1);
    expect(await w.attemptCount(accountId)).toBe(100);
    expect((await w.successesPerEvent(accountId)).filter((row) => row.successes !== 1)).toEqual([]);
  });
});
