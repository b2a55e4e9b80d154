import { createRedis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { createDispatchProducer, openWorker, QUEUES, type DispatchJob, type Job } from "./index";

describe("sms.dispatch producer (real Redis, real BullMQ)", () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
  });
  afterAll(() => world.destroy());

  it("delivers each message id once to a worker, and ignores a repeat of a waiting job", async () => {
    const connection = createRedis(world.redisUrl, "queue");
    const context = { connection, prefix: world.redisPrefix };
    const producer = createDispatchProducer(context);
    await producer.enqueue(["msg_01ARZ3NDEKTSV4RRFFQ69G5FAV", "msg_01ARZ3NDEKTSV4RRFFQ69G5FAW"]);
    await producer.enqueue(["msg_01ARZ3NDEKTSV4RRFFQ69G5FAV"]);
    const seen: string[] = [];
    const worker = openWorker<DispatchJob>(context, QUEUES.smsDispatch, async (job: Job<DispatchJob>) => {
      seen.push(job.data.messageId);
    });
    await waitFor(() => seen.length >= 2, { what: "two jobs" });
    await worker.close();
    await producer.close();
    connection.disconnect();
    expect(seen.sort()).toEqual(["msg_01ARZ3NDEKTSV4RRFFQ69G5FAV", "msg_01ARZ3NDEKTSV4RRFFQ69G5FAW"]);
    const keys = await (async () => {
      const redis = createRedis(world.redisUrl);
      const found = await redis.keys(`${world.redisPrefix}:{sms.dispatch}:*`);
      redis.disconnect();
      return found;
    })();
    expect(keys.length).toBeGreaterThan(0);
  });
});
