import { openQueue, openWorker, QUEUES, type QueueContext } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
// @sms/metrics links only prom-client and @sms/queues; its instrumentation is proven here, where Express, Redis and BullMQ are at hand.
import { MetricsRegistry, QueueMetrics, sampleValue } from "@sms/metrics";

let world: TestWorld;
let connection: Redis;
let context: QueueContext;

beforeAll(async () => {
  world = await createTestWorld();
  connection = createRedis(world.redisUrl, "queue");
  context = { connection, prefix: world.redisPrefix };
});
afterAll(async () => {
  connection.disconnect();
  await world.destroy();
});

describe("queue metrics (real Redis and BullMQ)", () => {
  it("reports a queue's depth by state at scrape time", async () => {
    const registry = new MetricsRegistry({ defaultMetrics: false });
    const queue = openQueue(context, QUEUES.smppDlrOut);
    new QueueMetrics(registry).watchDepth(queue.name, queue);
    try {
      await queue.addBulk([1, 2, 3].map((n) => ({ name: "r", data: { n } })));
      await queue.add("later", { n: 4 }, { delay: 60_000 });
      const text = await registry.render();
      expect(sampleValue(text, "sms_queue_jobs", { queue: "smpp.dlr-out", state: "waiting" })).toBe(3);
      expect(sampleValue(text, "sms_queue_jobs", { queue: "smpp.dlr-out", state: "delayed" })).toBe(1);
      expect(sampleValue(text, "sms_queue_jobs", { queue: "smpp.dlr-out", state: "active" })).toBe(0);
      await queue.drain(true);
      const drained = await registry.render();
      expect(sampleValue(drained, "sms_queue_jobs", { queue: "smpp.dlr-out", state: "waiting" })).toBe(0);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it("counts a worker's completed and failed jobs, their wait and run time, until it closes", async () => {
    const registry = new MetricsRegistry({ defaultMetrics: false });
    const metrics = new QueueMetrics(registry);
    const queue = openQueue<{ fail: boolean }>(context, QUEUES.webhookDeliver);
    await queue.addBulk([
      { name: "ok", data: { fail: false } },
      { name: "ok", data: { fail: false } },
      { name: "boom", data: { fail: true }, opts: { attempts: 2, backoff: { type: "fixed", delay: 10 } } },
    ]);
    const worker = openWorker<{ fail: boolean }>(context, QUEUES.webhookDeliver, async (job) => {
      if (job.data.fail) throw new Error("endpoint said no");
    });
    worker.on("error", () => undefined);
    metrics.instrumentWorker(worker, context);
    const labels = { queue: "webhook.deliver" };
    await waitFor(
      async () => sampleValue(await registry.render(), "sms_queue_jobs_failed_total", labels) === 2,
      {
        what: "both attempts of the failing job",
      },
    );
    const text = await registry.render();
    expect(sampleValue(text, "sms_queue_jobs_processed_total", labels)).toBe(2);
    // Wait is observed on first attempts only: three jobs, not four attempts.
    expect(sampleValue(text, "sms_queue_job_wait_seconds_count", labels)).toBe(3);
    expect(sampleValue(text, "sms_queue_job_duration_seconds_count", labels)).toBe(2);
    expect(sampleValue(text, "sms_queue_jobs", { ...labels, state: "failed" })).toBe(1);

    await worker.close();
    await waitFor(async () => sampleValue(await registry.render(), "sms_queue_jobs", labels) === undefined, {
      what: "the closed worker's queue to leave the depth gauge",
    });
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it("answers the scrape without a queue whose Redis does not answer in time", async () => {
    const registry = new MetricsRegistry({ defaultMetrics: false });
    const metrics = new QueueMetrics(registry);
    metrics.watchDepth("stuck", { getJobCounts: () => new Promise(() => undefined) });
    const queue = openQueue(context, QUEUES.smsDispatchNormal);
    metrics.watchDepth(queue.name, queue);
    try {
      const started = Date.now();
      const text = await registry.render();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(sampleValue(text, "sms_queue_jobs", { queue: "stuck" })).toBeUndefined();
      expect(sampleValue(text, "sms_queue_jobs", { queue: "sms.dispatch.normal", state: "waiting" })).toBe(0);
    } finally {
      await queue.close();
    }
  });
});
