import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import {
  batchDeliveries,
  createWebhookDeliverProducer,
  openQueue,
  WEBHOOK_CLASSES,
  WEBHOOK_QUEUES,
  webhookJobRef,
  type WebhookClass,
  type WebhookDeliverJob,
  type WebhookDeliverProducer,
} from "./index";

const event = (n: number) => `evt_01ARZ3NDEKTSV4RRFFQ69G${String(n).padStart(4, "0")}`;

describe("batchDeliveries", () => {
  it("groups by account, class and schedule start, and marks each job with its class", () => {
    const jobs = batchDeliveries([
      { eventId: event(1), accountId: "acc_A" },
      { eventId: event(2), accountId: "acc_A", webhookClass: "high" },
      { eventId: event(3), accountId: "acc_A", webhookClass: "bulk" },
      { eventId: event(4), accountId: "acc_A" },
      { eventId: event(5), accountId: "acc_A", webhookClass: "bulk" },
      { eventId: event(6), accountId: "acc_B", webhookClass: "bulk" },
    ]);
    expect(jobs.map((job) => [job.accountId, job.high, job.bulk, job.eventIds])).toEqual([
      ["acc_A", undefined, undefined, [event(1), event(4)]],
      ["acc_A", true, undefined, [event(2)]],
      ["acc_A", undefined, true, [event(3), event(5)]],
      ["acc_B", undefined, true, [event(6)]],
    ]);
  });
});

describe("the webhook.deliver producer (real Redis, BullMQ)", () => {
  let world: TestWorld;
  let connection: Redis;
  let producer: WebhookDeliverProducer;
  const context = () => ({ connection, prefix: world.redisPrefix });

  beforeAll(async () => {
    world = await createTestWorld();
    connection = createRedis(world.redisUrl, "queue");
    producer = createWebhookDeliverProducer(context());
  });
  afterAll(async () => {
    await producer.close();
    connection.disconnect();
    await world.destroy();
  });

  async function jobsOf(webhookClass: WebhookClass, state: "waiting" | "delayed") {
    const queue = openQueue<WebhookDeliverJob>(context(), WEBHOOK_QUEUES[webhookClass]);
    const jobs = await queue.getJobs([state]);
    await queue.close();
    return jobs;
  }

  it("queues each class on its own queue, and wakes a delayed job of any class by its ref", async () => {
    const flags = { high: { high: true as const }, standard: {}, bulk: { bulk: true as const } };
    await producer.enqueueBatches(
      WEBHOOK_CLASSES.map((webhookClass, i) => ({
        accountId: "acc_A",
        eventIds: [event(10 + i)],
        claim: `claim-${webhookClass}`,
        delayMs: 3_600_000,
        ...flags[webhookClass],
      })),
    );
    const refs: string[] = [];
    for (const webhookClass of WEBHOOK_CLASSES) {
      const delayed = await jobsOf(webhookClass, "delayed");
      expect(delayed.map((job) => job.data.claim)).toEqual([`claim-${webhookClass}`]);
      refs.push(webhookJobRef(delayed[0]!));
    }
    // Job ids count from 1 on each queue: the ref tells the queues apart.
    expect(new Set(refs).size).toBe(WEBHOOK_CLASSES.length);

    await producer.promote(refs);
    for (const webhookClass of WEBHOOK_CLASSES) {
      expect((await jobsOf(webhookClass, "waiting")).map((job) => job.data.claim)).toEqual([
        `claim-${webhookClass}`,
      ]);
      expect(await jobsOf(webhookClass, "delayed")).toEqual([]);
    }
  });
});
