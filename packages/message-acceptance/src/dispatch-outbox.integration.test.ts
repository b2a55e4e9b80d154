import pg from "pg";
import { createLogger } from "@sms/logger";
import { createDispatchProducer, pendingDispatchJobs } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { newId } from "@sms/ids";
import { DispatchOutbox } from "./dispatch-outbox";
import { GroupCommitter } from "./group-committer";
import { prepareMessage } from "./prepare";

describe("DispatchOutbox (real PostgreSQL, Redis and BullMQ)", () => {
  let world: TestWorld;
  let pool: pg.Pool;
  let connection: Redis;

  beforeAll(async () => {
    world = await createTestWorld();
    pool = world.pool(4);
    connection = createRedis(world.redisUrl, "queue");
  });
  afterAll(async () => {
    connection.disconnect();
    await world.destroy();
  });

  it("enqueues at once and deletes the rows of many hand-offs with one DELETE, at the latest on settle", async () => {
    const producer = createDispatchProducer({ connection, prefix: world.redisPrefix });
    const outbox = new DispatchOutbox(pool, producer, createLogger("test", "error"), {
      deleteDelayMs: 60_000,
    });
    const committer = new GroupCommitter(pool, { onQueued: (ids) => outbox.handOff(ids) });
    const accountId = "acc_outbox";
    await pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'test', 100, now())", [
      accountId,
    ]);
    const send = () =>
      committer.commit({
        accountId,
        messages: [
          prepareMessage(
            { id: accountId, senderIds: new Set(["ACME"]) },
            { to: "+14155550100", message: "hello", senderId: "ACME" },
            { source: "api", batchId: null, now: new Date() },
            { maxSegments: 10, creditsPerSegment: 1 },
          ),
        ],
      });
    const outboxRows = async () =>
      Number((await pool.query("SELECT count(*) AS n FROM dispatch_outbox")).rows[0].n);

    const deletes: string[] = [];
    const query = pool.query.bind(pool);
    jest.spyOn(pool, "query").mockImplementation(((text: unknown, values: unknown) => {
      if (typeof text === "string" && text.startsWith("DELETE FROM dispatch_outbox")) deletes.push(text);
      return query(text as string, values as unknown[]);
    }) as never);
    try {
      for (let i = 0; i < 3; i++) await send();
      await Promise.all([send(), send()]);
      // In Redis at once (BullMQ's wait list), the rows still there: the DELETE waits for more.
      const inJobs = async () =>
        (await pendingDispatchJobs({ connection, prefix: world.redisPrefix })).flatMap(
          ({ job }) => job.data.messageIds,
        ).length;
      await waitFor(async () => (await inJobs()) === 5, { what: "the five messages in dispatch jobs" });
      expect(await outboxRows()).toBe(5);
      expect(deletes).toHaveLength(0);
      await outbox.settle();
      expect(await outboxRows()).toBe(0);
      expect(deletes).toHaveLength(1);
    } finally {
      jest.restoreAllMocks();
      await outbox.stop();
      await producer.close();
    }
  });

  it("hands off what was committed during a hand-off lingerMs after it, in one call", async () => {
    const producer = createDispatchProducer({ connection, prefix: world.redisPrefix });
    const lingerMs = 150;
    const outbox = new DispatchOutbox(pool, producer, createLogger("test", "error"), { lingerMs });
    const calls: { size: number; startedAt: number; endedAt?: number }[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const enqueue = producer.enqueue.bind(producer);
    // The real producer, its first call held until the later hand-offs are in.
    jest.spyOn(producer, "enqueue").mockImplementation(async (entries, options) => {
      const call: (typeof calls)[number] = { size: entries.length, startedAt: Date.now() };
      calls.push(call);
      if (calls.length === 1) await held;
      await enqueue(entries, options);
      call.endedAt = Date.now();
    });
    const entry = () => ({ messageId: newId("msg"), accountId: "acc_linger", priority: "normal" as const });
    try {
      outbox.handOff([entry()]);
      await waitFor(async () => calls.length === 1, { what: "the first hand-off under way" });
      for (let i = 0; i < 5; i++) outbox.handOff([entry()]);
      release();
      await outbox.settle();
      expect(calls.map((call) => call.size)).toEqual([1, 5]);
      // setTimeout may fire a millisecond before Date.now() says the time is up.
      expect(calls[1]!.startedAt - calls[0]!.endedAt!).toBeGreaterThanOrEqual(lingerMs - 2);
      const jobs = await pendingDispatchJobs({ connection, prefix: world.redisPrefix });
      const mine = jobs.filter(({ job }) => job.data.accountId === "acc_linger");
      expect(mine.flatMap(({ job }) => job.data.messageIds)).toHaveLength(6);
    } finally {
      jest.restoreAllMocks();
      await outbox.stop();
      await producer.close();
    }
  });

  it("hands off high messages in a lane of their own, without the others' linger", async () => {
    const producer = createDispatchProducer({ connection, prefix: world.redisPrefix });
    const outbox = new DispatchOutbox(pool, producer, createLogger("test", "error"), {
      lingerMs: 400,
      highLingerMs: 5,
    });
    const calls: { priorities: string[]; afterMs: number }[] = [];
    const enqueue = producer.enqueue.bind(producer);
    const started = Date.now();
    jest.spyOn(producer, "enqueue").mockImplementation(async (entries, options) => {
      calls.push({ priorities: entries.map((e) => e.priority), afterMs: Date.now() - started });
      await enqueue(entries, options);
    });
    const entry = (priority: "high" | "normal" | "bulk") => ({
      messageId: newId("msg"),
      accountId: "acc_lanes",
      priority,
    });
    try {
      outbox.handOff([entry("normal"), entry("high"), entry("bulk"), entry("high")]);
      await outbox.settle();
      expect(calls.map((call) => call.priorities)).toEqual([
        ["high", "high"],
        ["normal", "bulk"],
      ]);
      // A high message does not wait for the normal and bulk ones' linger.
      expect(calls[0]!.afterMs).toBeLessThan(200);
      expect(calls[1]!.afterMs).toBeGreaterThanOrEqual(398);
    } finally {
      jest.restoreAllMocks();
      await outbox.stop();
      await producer.close();
    }
  });
});
