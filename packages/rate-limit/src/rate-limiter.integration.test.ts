import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { deleteKeys } from "./fixtures/cleanup";
import {
  burstInOneWindow,
  expectFixedWindowInvariant,
  redisTime,
  waitForFreshWindow,
} from "./fixtures/redis-clock";
import { createRateLimiter, type RateLimiter } from "./rate-limiter";

describe("rate limiter (real Redis)", () => {
  let world: TestWorld;
  let redis: Redis;
  let limiter: RateLimiter;
  let n = 0;
  const freshAccount = () => `acc_${(n += 1)}_${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    world = await createTestWorld();
    redis = createRedis(world.redisUrl);
    await waitFor(() => redis.status === "ready", { what: "Redis connection" });
    limiter = createRateLimiter(redis, { prefix: world.redisPrefix });
  });
  afterAll(async () => {
    await deleteKeys(redis, world.redisPrefix);
    redis.disconnect();
    await world.destroy();
  });

  it("allows exactly N requests in a second and refuses the next with RATE_LIMITED", async () => {
    let account = "";
    const decisions = await burstInOneWindow(redis, async (id) => {
      account = id;
      const made = [];
      for (let i = 0; i < 6; i += 1) made.push(await limiter.check(id, { requestsPerSecond: 5 }));
      return made;
    });
    const second = decisions[0]!.resetEpochSeconds - 1;
    expect(second).toBeGreaterThan(1_700_000_000);

    expect(decisions.slice(0, 5).map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    expect(decisions[5]).toEqual({
      allowed: false,
      reason: "RATE_LIMITED",
      limit: 5,
      remaining: 0,
      resetEpochSeconds: second + 1,
      retryAfterSeconds: 1,
    });
    for (const d of decisions) expect(d.resetEpochSeconds).toBe(second + 1);
    expect(decisions[0]?.retryAfterSeconds).toBe(0);
    // Refusals are not counted, and the window key goes away on its own.
    const windowKey = `${world.redisPrefix}:rl:{${account}}:rps:${second}`;
    expect(await redis.get(windowKey)).toBe("5");
    expect(await redis.ttl(windowKey)).toBeGreaterThan(0);
    expect(await redis.ttl(windowKey)).toBeLessThanOrEqual(2);
  });

  it("starts a fresh window at the next second", async () => {
    const account = freshAccount();
    await waitForFreshWindow(redis);
    await limiter.check(account, { requestsPerSecond: 2 });
    await limiter.check(account, { requestsPerSecond: 2 });
    const refused = await limiter.check(account, { requestsPerSecond: 2 });
    expect(refused.reason).toBe("RATE_LIMITED");

    await waitFor(async () => (await redisTime(redis))[0] >= refused.resetEpochSeconds, {
      intervalMs: 10,
      timeoutMs: 3000,
      what: "the window reset",
    });
    const next = await limiter.check(account, { requestsPerSecond: 2 });
    expect(next).toMatchObject({ allowed: true, remaining: 1 });
    expect(next.resetEpochSeconds).toBeGreaterThan(refused.resetEpochSeconds);
  });

  it("allows exactly 100 of 500 parallel checks at a limit of 100", async () => {
    // Five connections, so the checks really arrive interleaved rather than as one pipeline.
    const connections = Array.from({ length: 5 }, () => createRedis(world.redisUrl));
    const limiters = connections.map((c) => createRateLimiter(c, { prefix: world.redisPrefix }));
    // A "command" connection has no offline queue: a check before "ready" fails instead of waiting.
    await waitFor(() => connections.every((c) => c.status === "ready"), { what: "five connections" });
    try {
      const decisions = await burstInOneWindow(redis, (account) =>
        Promise.all(
          Array.from({ length: 500 }, (_, i) => limiters[i % 5]!.check(account, { requestsPerSecond: 100 })),
        ),
      );
      expectFixedWindowInvariant(decisions, 100);
      expect(new Set(decisions.map((d) => d.resetEpochSeconds)).size).toBe(1);
      expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
      expect(decisions.filter((d) => d.reason === "RATE_LIMITED")).toHaveLength(400);
    } finally {
      for (const c of connections) c.disconnect();
    }
  });

  it("decides one account's checks of one event-loop turn in one script call, in arrival order", async () => {
    const connection = createRedis(world.redisUrl);
    const batching = createRateLimiter(connection, { prefix: world.redisPrefix });
    await waitFor(() => connection.status === "ready", { what: "a connection" });
    const calls = jest.spyOn(connection, "sendCommand");
    try {
      const other = freshAccount();
      const decisions = await burstInOneWindow(redis, (account) =>
        Promise.all([
          ...Array.from({ length: 7 }, () => batching.check(account, { requestsPerSecond: 5 })),
          batching.check(other, { requestsPerSecond: 5 }),
        ]),
      );
      const scriptCalls = calls.mock.calls.filter(([command]) => /^eval/i.test(command.name));
      // One call per account (the first may be EVALSHA answered NOSCRIPT and then EVAL).
      expect(scriptCalls.length).toBeGreaterThanOrEqual(2);
      expect(scriptCalls.length).toBeLessThanOrEqual(3);
      expect(decisions.map((d) => [d.allowed, d.reason, d.remaining])).toEqual([
        [true, undefined, 4],
        [true, undefined, 3],
        [true, undefined, 2],
        [true, undefined, 1],
        [true, undefined, 0],
        [false, "RATE_LIMITED", 0],
        [false, "RATE_LIMITED", 0],
        [true, undefined, 4], // the other account's window is its own
      ]);
    } finally {
      calls.mockRestore();
      connection.disconnect();
    }
  });

  it("rejects an account id that would break the Cluster hash tag, and limits that are not whole numbers >= 0", async () => {
    await expect(limiter.check("acc_{x}", { requestsPerSecond: 1 })).rejects.toThrow(TypeError);
    await expect(limiter.check("acc_1", { requestsPerSecond: -1 })).rejects.toThrow(TypeError);
    await expect(limiter.check("acc_1", { requestsPerSecond: 1.5 })).rejects.toThrow(TypeError);
  });
});
