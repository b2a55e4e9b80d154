import { secondsToUtcMidnight } from "@sms/message-acceptance";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

/**
 * docs/rate-limits.md: the limits are kept in Redis and shared by every gateway replica. Two
 * gateways on one database and one Redis prefix must together allow exactly the
 * account's requests per second and its daily message quota, not each of them.
 */

type Response = Awaited<ReturnType<TestGateway["request"]>>;

const ITEM = { to: "+14155550100", message: "Shared limits" };
const BAD_ITEM = { to: "+1415", message: "not a number" };
const SEND = { ...ITEM, sender_id: "ACME" };
const items = (n: number) => Array.from({ length: n }, () => ITEM);
const bulk = (messages: ReadonlyArray<{ to: string; message: string }>) => ({ sender_id: "ACME", messages });

describe("two gateway processes sharing one rate limit and one daily quota", () => {
  let world: TestWorld;
  let a: TestGateway;
  let b: TestGateway;
  let redis: Redis;

  beforeAll(async () => {
    world = await createTestWorld();
    // Same world twice: one database, one Redis prefix. The harness leaves a given world alone on stop().
    // Keys are cached (as in production), so a burst costs no database read per request and fits in a
    // second even on a busy machine; the limiter itself keeps no state in the process.
    a = await startTestGateway({ AUTH_CACHE_SECONDS: "60" }, world);
    b = await startTestGateway({ AUTH_CACHE_SECONDS: "60" }, world);
    redis = createRedis(world.redisUrl);
    // A throwaway burst first: sockets, pools and JIT warm, so a measured burst fits in one second.
    const warm = await a.createAccount({ requestsPerSecond: 10_000 });
    await Promise.all(
      [a, b].flatMap((g) =>
        Array.from({ length: 40 }, () => g.request("GET", "/v1/account", { key: warm.key })),
      ),
    );
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    redis?.disconnect();
    await world?.destroy();
  });

  /** The Redis clock, the one the limiter decides by: [epoch second, microseconds]. */
  async function redisNow(): Promise<[number, number]> {
    const [seconds, micros] = await redis.time();
    return [Number(seconds), Number(micros)];
  }

  /**
   * Fires `burst` for a fresh account early in a Redis second, so that all of it falls in one
   * one-second window. A burst that straddles a boundary proves less: it is retried (at most 3 tries).
   */
  async function burstInOneWindow(burst: (account: TestAccount) => Promise<Response[]>) {
    for (let attempt = 1; ; attempt++) {
      const account = await a.createAccount({ credits: 1000, requestsPerSecond: 50 });
      // Each gateway learns the key first; these two requests fall in an earlier window than the burst.
      const warmUp = await Promise.all(
        [a, b].map((g) => g.request("GET", "/v1/account", { key: account.key })),
      );
      const warmUpWindowEnds = Math.max(...warmUp.map((r) => Number(r.headers.get("x-ratelimit-reset"))));
      const started = await waitFor(
        async () => {
          const [seconds, micros] = await redisNow();
          return seconds >= warmUpWindowEnds && micros < 100_000 ? seconds : undefined;
        },
        { intervalMs: 5, timeoutMs: 5000, what: "the start of a fresh Redis second" },
      );
      const responses = await burst(account);
      const ended = (await redisNow())[0];
      const resets = new Set(responses.map((r) => r.headers.get("x-ratelimit-reset")));
      if (resets.size === 1 || attempt === 3) return { account, started, ended, responses };
    }
  }

  /** Every response carries the window's headers; the allowed ones count the window down to 0. */
  function expectWindowHeaders(responses: Response[], burst: { started: number; ended: number }) {
    const resets = new Set(responses.map((r) => r.headers.get("x-ratelimit-reset")));
    expect(resets.size).toBe(1);
    // Reset is the epoch second after the one the requests were counted in: a second of the burst.
    const reset = Number([...resets][0]);
    expect(reset - 1).toBeGreaterThanOrEqual(burst.started);
    expect(reset - 1).toBeLessThanOrEqual(burst.ended);
    for (const response of responses) expect(response.headers.get("x-ratelimit-limit")).toBe("50");
    const allowed = responses.filter((r) => r.status !== 429);
    const remaining = allowed
      .map((r) => Number(r.headers.get("x-ratelimit-remaining")))
      .sort((x, y) => y - x);
    expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
    for (const refused of responses.filter((r) => r.status === 429)) {
      expectError(refused, 429, "RATE_LIMITED");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
  }

  it("allows exactly 50 of 80 requests fired at two gateways in one second, at 50 per second", async () => {
    const { responses, ...burst } = await burstInOneWindow((account) =>
      Promise.all(
        [a, b].flatMap((gateway) =>
          Array.from({ length: 40 }, () => gateway.request("GET", "/v1/account", { key: account.key })),
        ),
      ),
    );
    // Each gateway alone would allow all 40 of its requests: 50 in total means one shared window.
    expect(responses.filter((r) => r.status === 200)).toHaveLength(50);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(30);
    expectWindowHeaders(responses, burst);
  });

  it("counts POST /v1/sms/send in the same shared window, and a refused send persists nothing", async () => {
    const { account, responses, ...burst } = await burstInOneWindow((account) =>
      Promise.all([
        ...Array.from({ length: 30 }, () => a.request("GET", "/v1/account", { key: account.key })),
        ...Array.from({ length: 30 }, () =>
          b.request("POST", "/v1/sms/send", { key: account.key, body: SEND }),
        ),
      ]),
    );
    expect(responses.filter((r) => r.status === 429)).toHaveLength(10);
    expectWindowHeaders(responses, burst);
    const sends = responses.slice(30);
    const accepted = sends.filter((r) => r.status === 202).length;
    expect(sends.filter((r) => r.status !== 202 && r.status !== 429)).toEqual([]);
    expect(await a.db.prisma.message.count({ where: { accountId: account.accountId } })).toBe(accepted);
    const { balance } = await a.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(Number(balance)).toBe(1000 - accepted);
  });

  describe("the daily quota", () => {
    // The quota is per UTC day: a test running across midnight would see two days.
    beforeAll(async () => {
      await waitFor(() => secondsToUtcMidnight(Date.now()) > 60, {
        timeoutMs: 75_000,
        intervalMs: 1000,
        what: "a time not within a minute of UTC midnight",
      });
    }, 90_000);

    const messagesOf = (account: TestAccount) =>
      a.db.prisma.message.count({ where: { accountId: account.accountId } });

    it("is shared: 8 accepted on one gateway leave room for 2, not 3, on the other; the refusal says when it resets", async () => {
      const account = await a.createAccount({ credits: 1000, dailyQuota: 10 });
      const first = await a.request("POST", "/v1/sms/bulk", { key: account.key, body: bulk(items(8)) });
      expect(first.status).toBe(202);
      expect(first.body.accepted).toBe(8);

      const tooMany = await b.request("POST", "/v1/sms/bulk", { key: account.key, body: bulk(items(3)) });
      expectError(tooMany, 429, "QUOTA_EXCEEDED");
      const toMidnight = secondsToUtcMidnight(Date.now());
      expect(Math.abs(Number(tooMany.headers.get("retry-after")) - toMidnight)).toBeLessThanOrEqual(2);
      expect(await messagesOf(account)).toBe(8); // all or nothing: none of the 3 was accepted

      const rest = await b.request("POST", "/v1/sms/bulk", { key: account.key, body: bulk(items(2)) });
      expect(rest.status).toBe(202);
      expect(rest.body.accepted).toBe(2);
      expectError(
        await a.request("POST", "/v1/sms/send", { key: account.key, body: SEND }),
        429,
        "QUOTA_EXCEEDED",
      );
      expect(await messagesOf(account)).toBe(10);
    });

    it("shows today's count in GET /v1/account, and none left from another day", async () => {
      const account = await a.createAccount({ credits: 1000, dailyQuota: 10 });
      await a.db.pool.query(
        "UPDATE accounts SET quota_day = (now() AT TIME ZONE 'UTC')::date - 1, quota_used = 10 WHERE id = $1",
        [account.accountId],
      );
      const before = await a.request("GET", "/v1/account", { key: account.key });
      expect(before.body.limits.daily_quota_used).toBe(0);
      expect((await a.request("POST", "/v1/sms/send", { key: account.key, body: SEND })).status).toBe(202);
      const after = await b.request("GET", "/v1/account", { key: account.key });
      expect(after.body.limits.daily_quota_used).toBe(1);
    });

    it("counts only the stored items of a partly accepted bulk, exactly", async () => {
      const account = await a.createAccount({ credits: 1000, dailyQuota: 10 });
      const partial = await a.request("POST", "/v1/sms/bulk", {
        key: account.key,
        body: bulk([ITEM, BAD_ITEM, ITEM, BAD_ITEM, BAD_ITEM]),
      });
      expect(partial.status).toBe(202);
      expect(partial.body).toMatchObject({ accepted: 2, rejected: 3 });
      // Only the 2 stored are counted, by the statement that stored them (docs/decisions.md#daily-quota).
      const usage = await b.request("GET", "/v1/account", { key: account.key });
      expect(usage.body.limits).toMatchObject({ daily_quota: 10, daily_quota_used: 2 });

      // 2 used: 8 more fit exactly (had the 5 been counted, 5 + 8 would exceed 10), through the other gateway...
      const eight = await b.request("POST", "/v1/sms/bulk", { key: account.key, body: bulk(items(8)) });
      expect(eight.status).toBe(202);
      expect(eight.body.accepted).toBe(8);
      // ...and not one more.
      expectError(
        await a.request("POST", "/v1/sms/send", { key: account.key, body: SEND }),
        429,
        "QUOTA_EXCEEDED",
      );
      expect(await messagesOf(account)).toBe(10);
    });
  });
});
