import { readFileSync } from "node:fs";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { deleteKeys } from "./fixtures/cleanup";
import {
  burstInOneWindow,
  expectFixedWindowInvariant,
  redisTime,
  waitForFreshWindow,
} from "./fixtures/redis-clock";
import { CHECK_SCRIPT_PATH, createRateLimiter, type RateLimiter } from "./rate-limiter";
import { secondsUntilUtcMidnight, utcDayKey } from "./utc-day";

describe("rate limiter (real Redis)", () => {
  let world: TestWorld;
  let redis: Redis;
  let limiter: RateLimiter;
  let n = 0;
  const freshAccount = () => `acc_${(n += 1)}_${Math.random().toString(36).slice(2, 8)}`;
  const dayKey = (accountId: string, day: string) => `${world.redisPrefix}:rl:{${accountId}}:day:${day}`;

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

  it("counts nothing against the quota when the request limit refuses", async () => {
    const account = freshAccount();
    await waitForFreshWindow(redis);
    const first = await limiter.check(account, { requestsPerSecond: 1, dailyQuota: 10 }, { messages: 1 });
    const second = await limiter.check(account, { requestsPerSecond: 1, dailyQuota: 10 }, { messages: 3 });
    expect(first.allowed).toBe(true);
    expect(second).toMatchObject({ allowed: false, reason: "RATE_LIMITED" });
    expect(second.quotaDay).toBeUndefined();
    expect(await redis.get(dayKey(account, first.quotaDay!))).toBe("1");
  });

  it("refuses a multi-message cost that does not fit the quota whole, counting none of it", async () => {
    const account = freshAccount();
    const limits = { requestsPerSecond: 1000, dailyQuota: 10 };
    const six = await limiter.check(account, limits, { messages: 6 });
    const [now] = await redisTime(redis);
    expect(six).toMatchObject({ allowed: true, quotaDay: utcDayKey(now) });

    const five = await limiter.check(account, limits, { messages: 5 });
    const [after] = await redisTime(redis);
    expect(five).toMatchObject({ allowed: false, reason: "QUOTA_EXCEEDED", limit: 1000 });
    // Read after the check: a second may have ticked in between, never more.
    expect([secondsUntilUtcMidnight(after), secondsUntilUtcMidnight(after) + 1]).toContain(
      five.retryAfterSeconds,
    );
    expect(five.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // The request itself was counted: the headers still describe the request window.
    expect(five.remaining).toBeLessThan(1000);
    expect(await redis.get(dayKey(account, six.quotaDay!))).toBe("6");

    expect((await limiter.check(account, limits, { messages: 4 })).allowed).toBe(true);
    expect((await limiter.check(account, limits, { messages: 1 })).reason).toBe("QUOTA_EXCEEDED");
    expect(await redis.get(dayKey(account, six.quotaDay!))).toBe("10");
    // The day's counter lives until an hour past UTC midnight.
    const ttl = await redis.ttl(dayKey(account, six.quotaDay!));
    expect(Math.abs(ttl - (secondsUntilUtcMidnight(after) + 3600))).toBeLessThanOrEqual(2);
  });

  it("gives refunded messages back to the day, never below zero", async () => {
    const account = freshAccount();
    const limits = { requestsPerSecond: 1000, dailyQuota: 10 };
    const bulk = await limiter.check(account, limits, { messages: 10 });
    expect(bulk.allowed).toBe(true);
    expect((await limiter.check(account, limits, { messages: 1 })).reason).toBe("QUOTA_EXCEEDED");

    expect(await limiter.refund(account, 7, bulk.quotaDay)).toBe(3);
    expect(await limiter.refund(account, 3)).toBe(0); // today on the Redis clock
    expect((await limiter.check(account, limits, { messages: 10 })).allowed).toBe(true);
    expect(await limiter.refund(account, 50, bulk.quotaDay)).toBe(0);
    expect(await redis.get(dayKey(account, bulk.quotaDay!))).toBe("0");

    // A day that counted nothing has nothing to give back, and no counter appears for it.
    expect(await limiter.refund(account, 5, "20000101")).toBe(0);
    expect(await redis.exists(dayKey(account, "20000101"))).toBe(0);
  });

  it("counts messages but no request for a quota-only check", async () => {
    const account = freshAccount();
    await waitForFreshWindow(redis);
    const request = await limiter.check(account, { requestsPerSecond: 1 });
    const quota = await limiter.check(
      account,
      { requestsPerSecond: 1, dailyQuota: 5 },
      { requests: 0, messages: 5 },
    );
    expect(request).toMatchObject({ allowed: true, remaining: 0 });
    expect(quota).toMatchObject({
      allowed: true,
      remaining: 0,
      quotaDay: request.quotaDay ?? quota.quotaDay,
    });
    expect(await redis.get(dayKey(account, quota.quotaDay!))).toBe("5");
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
          ...Array.from({ length: 7 }, (_, i) =>
            batching.check(account, { requestsPerSecond: 5, dailyQuota: 4 }, { messages: i === 1 ? 3 : 1 }),
          ),
          batching.check(other, { requestsPerSecond: 5 }),
        ]),
      );
      const scriptCalls = calls.mock.calls.filter(([command]) => /^eval/i.test(command.name));
      // One call per account (the first may be EVALSHA answered NOSCRIPT and then EVAL).
      expect(scriptCalls.length).toBeGreaterThanOrEqual(2);
      expect(scriptCalls.length).toBeLessThanOrEqual(3);
      expect(decisions.map((d) => [d.allowed, d.reason, d.remaining])).toEqual([
        [true, undefined, 4],
        [true, undefined, 3], // 3 messages: 4 of the quota used
        [false, "QUOTA_EXCEEDED", 2], // the request counts, the message does not fit
        [false, "QUOTA_EXCEEDED", 1],
        [false, "QUOTA_EXCEEDED", 0],
        [false, "RATE_LIMITED", 0],
        [false, "RATE_LIMITED", 0],
        [true, undefined, 4], // the other account's window is its own
      ]);
    } finally {
      calls.mockRestore();
      connection.disconnect();
    }
  });

  it("rejects an account id that would break the Cluster hash tag, and negative limits", async () => {
    await expect(limiter.check("acc_{x}", { requestsPerSecond: 1 })).rejects.toThrow(TypeError);
    await expect(limiter.check("acc_1", { requestsPerSecond: -1 })).rejects.toThrow(TypeError);
    await expect(limiter.check("acc_1", { requestsPerSecond: 1 }, { messages: 1.5 })).rejects.toThrow(
      TypeError,
    );
  });

  it("names the same UTC day in Lua as utcDayKey does, every day from 1970 to 2200", async () => {
    const source = readFileSync(CHECK_SCRIPT_PATH, "utf8");
    const utcDay = /local function utc_day[\s\S]*?\nend\n/.exec(source)?.[0];
    expect(utcDay).toBeDefined();
    const firstDay = 0;
    const lastDay = Math.floor(Date.UTC(2200, 11, 31) / 86_400_000);
    const lua = `${utcDay}
local days = {}
for day = tonumber(ARGV[1]), tonumber(ARGV[2]) do days[#days + 1] = utc_day(day * 86400 + 86399) end
return days`;
    const fromLua = (await redis.eval(lua, 0, firstDay, lastDay)) as string[];
    const fromJs = Array.from({ length: lastDay - firstDay + 1 }, (_, i) =>
      utcDayKey((firstDay + i) * 86_400),
    );
    expect(fromLua).toEqual(fromJs);
  });
});
