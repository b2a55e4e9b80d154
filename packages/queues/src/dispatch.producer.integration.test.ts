import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import {
  createDispatchProducer,
  pendingDispatchJobs,
  planJobs,
  type DispatchEntry,
  type DispatchProducer,
} from "./index";

const id = (n: number) => `msg_01ARZ3NDEKTSV4RRFFQ69G${String(n).padStart(4, "0")}`;
const entry = (
  n: number,
  accountId = "acc_A",
  priority: DispatchEntry["priority"] = "normal",
): DispatchEntry => ({
  messageId: id(n),
  accountId,
  priority,
});

describe("planJobs", () => {
  it("cuts entries into jobs of one account and class, at most batchSize each, in arrival order", () => {
    const entries = [
      entry(1),
      entry(2, "acc_B"),
      entry(3),
      entry(4, "acc_A", "high"),
      entry(5),
      entry(6, "acc_A", "bulk"),
    ];
    const jobs = planJobs(entries, 2);
    expect(jobs.map((job) => [job.priority, job.data.accountId, job.data.messageIds])).toEqual([
      ["normal", "acc_A", [id(1), id(3)]],
      ["normal", "acc_A", [id(5)]],
      ["normal", "acc_B", [id(2)]],
      ["high", "acc_A", [id(4)]],
      ["bulk", "acc_A", [id(6)]],
    ]);
    expect(new Set(jobs.map((job) => job.id)).size).toBe(jobs.length);
    expect(jobs.every((job) => job.data.attempt === 0 && job.data.paced === false)).toBe(true);
  });

  it("puts a message listed twice in one job once", () => {
    const jobs = planJobs([entry(1), entry(2), entry(1)], 100);
    expect(jobs.map((job) => job.data.messageIds)).toEqual([[id(1), id(2)]]);
  });
});

describe("dispatch producer (real Redis, real BullMQ)", () => {
  let world: TestWorld;
  let connection: Redis;
  let producer: DispatchProducer;
  beforeAll(async () => {
    world = await createTestWorld();
    connection = createRedis(world.redisUrl, "queue");
    producer = createDispatchProducer({ connection, prefix: world.redisPrefix }, { batchSize: 100 });
  });
  afterAll(async () => {
    await producer.close();
    connection.disconnect();
    await world.destroy();
  });

  it("puts each class on its own queue in batch jobs, and claims every message for its job", async () => {
    const entries = [
      ...Array.from({ length: 250 }, (_, i) => entry(i, "acc_A", "bulk")),
      entry(900, "acc_B", "high"),
      entry(901, "acc_B", "normal"),
    ];
    await producer.enqueue(entries);
    const jobs = await pendingDispatchJobs({ connection, prefix: world.redisPrefix });
    const sizes = jobs.map(({ priority, job }) => `${priority}:${job.data.messageIds.length}`).sort();
    expect(sizes).toEqual(["bulk:100", "bulk:100", "bulk:50", "high:1", "normal:1"]);
    expect(await producer.claims.isHeld(entries.map((e) => e.messageId))).toEqual(entries.map(() => true));
  });

  it("gives a message held by a live job to no second job, and the reconciler's re-enqueue skips it", async () => {
    await producer.enqueue([entry(1000)]);
    const [first] = (await pendingDispatchJobs({ connection, prefix: world.redisPrefix })).filter(({ job }) =>
      job.data.messageIds.includes(id(1000)),
    );
    // A relay re-enqueues it: a second job exists, but the claim stays with the first.
    await producer.enqueue([entry(1000)]);
    const holding = (await pendingDispatchJobs({ connection, prefix: world.redisPrefix })).filter(({ job }) =>
      job.data.messageIds.includes(id(1000)),
    );
    expect(holding).toHaveLength(2);
    const second = holding.find(({ job }) => job.id !== first!.job.id)!;
    expect(await producer.claims.claim(second.job.id!, [id(1000)], 60_000)).toEqual([false]);
    expect(await producer.claims.claim(first!.job.id!, [id(1000)], 60_000)).toEqual([true]);
    // The reconciler adds nothing for a held message, and re-enqueues one that nobody holds.
    expect(await producer.enqueueUnheld([entry(1000), entry(1001)])).toBe(1);
  });

  it("hands claims on to the new job before it exists, and releases only its own", async () => {
    await producer.claims.claim("job-a", [id(2000), id(2001)], 60_000);
    await producer.enqueue([entry(2000)], { from: "job-a", delayMs: 60_000, paced: true, attempt: 2 });
    const [handed] = (await pendingDispatchJobs({ connection, prefix: world.redisPrefix })).filter(
      ({ job }) => job.data.messageIds.includes(id(2000)),
    );
    expect(handed!.job.data).toMatchObject({ attempt: 2, paced: true });
    expect(await handed!.job.getState()).toBe("delayed");
    expect(await producer.claims.claim("job-a", [id(2000), id(2001)], 60_000)).toEqual([false, true]);
    await producer.claims.release("job-a", [id(2000), id(2001)]);
    expect(await producer.claims.isHeld([id(2000), id(2001)])).toEqual([true, false]);
  });
});
