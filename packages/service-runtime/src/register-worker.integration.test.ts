import { createLogger } from "@sms/logger";
import { openQueue, QUEUES, type Worker } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { registerWorker } from "./index";

describe("registerWorker (real Redis and BullMQ)", () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
  });
  afterAll(() => world.destroy());

  it("opens an instrumented worker that logs a failed job with its fields and closes within a bound", async () => {
    const connection = createRedis(world.redisUrl, "queue");
    const context = { connection, prefix: world.redisPrefix };
    const logger = createLogger("register-worker-test", "warn");
    const lines: Array<Record<string, unknown>> = [];
    logger.on("data", (line: Record<string, unknown>) => lines.push(line));
    const instrumented: Worker[] = [];
    const processed: string[] = [];
    const registered = registerWorker<{ accountId: string; eventIds: string[] }>(
      context,
      QUEUES.webhookDeliver,
      async (job) => {
        processed.push(job.data.accountId);
        if (job.data.accountId === "acc_refused") throw new Error("endpoint refused");
      },
      {
        logger,
        metrics: { instrumentWorker: (worker) => void instrumented.push(worker) },
        worker: { concurrency: 1 },
        failed: {
          message: "test job failed",
          fields: (job) => ({ account_id: job?.data.accountId, deliveries: job?.data.eventIds.length }),
        },
      },
    );
    const queue = openQueue<{ accountId: string; eventIds: string[] }>(context, QUEUES.webhookDeliver);
    try {
      expect(instrumented).toEqual([registered.worker]);
      await queue.add("deliver", { accountId: "acc_ok", eventIds: ["evt_1"] });
      await queue.add("deliver", { accountId: "acc_refused", eventIds: ["evt_2", "evt_3"] });
      await waitFor(() => lines.some((line) => line.message === "test job failed"));
      expect(processed).toEqual(["acc_ok", "acc_refused"]);
      expect(lines.filter((line) => line.message === "test job failed")).toEqual([
        expect.objectContaining({ account_id: "acc_refused", deliveries: 2, error: "endpoint refused" }),
      ]);
      expect(await registered.close(1000)).toBe(true);
      expect(registered.worker.closing).toBeTruthy();
    } finally {
      await registered.close(0);
      await queue.close();
      connection.disconnect();
    }
  });
});
