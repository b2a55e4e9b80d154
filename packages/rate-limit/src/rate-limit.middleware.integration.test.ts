import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express, { type ErrorRequestHandler } from "express";
import { ApiError, isDependencyOutage, toErrorBody } from "@sms/errors";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, freePort, waitFor, type TestWorld } from "@sms/testing";
import { deleteKeys } from "./fixtures/cleanup";
import { waitForFreshWindow } from "./fixtures/redis-clock";
import { rateLimitMiddleware } from "./rate-limit.middleware";
import { createRateLimiter, type RateLimiter } from "./rate-limiter";

/** An app shaped like the gateway: authentication puts the account on res.locals, then the limiter. */
async function startApp(
  limiter: RateLimiter,
  seenErrors: unknown[],
): Promise<{ url: string; server: Server }> {
  const app = express();
  app.use((req, res, next) => {
    const id = req.get("x-test-account");
    if (id) res.locals.account = { id, requestsPerSecond: 2 };
    next();
  });
  app.use(
    rateLimitMiddleware({
      limiter,
      limitsFor: (_req, res) => {
        const account = res.locals.account as { id: string; requestsPerSecond: number } | undefined;
        return account && { accountId: account.id, requestsPerSecond: account.requestsPerSecond };
      },
    }),
  );
  app.get("/ping", (_req, res) => {
    res.json({ ok: true });
  });
  // The gateway's error handler, in miniature: the body from toErrorBody, Retry-After, 503 on outages.
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    seenErrors.push(error);
    if (error instanceof ApiError) {
      if (error.options.retryAfterSeconds) res.set("Retry-After", String(error.options.retryAfterSeconds));
      res.status(error.status).json(toErrorBody(error, "req_test"));
    } else if (isDependencyOutage(error)) {
      res
        .status(503)
        .json(toErrorBody(new ApiError("SERVICE_UNAVAILABLE", "Try again shortly."), "req_test"));
    } else {
      res.status(500).json(toErrorBody(new ApiError("INTERNAL", "Internal error."), "req_test"));
    }
  };
  app.use(onError);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const stop = (server: Server) => new Promise((resolve) => server.close(resolve));

describe("rate limit middleware (real Express, real HTTP, real Redis)", () => {
  let world: TestWorld;
  let redis: Redis;
  beforeAll(async () => {
    world = await createTestWorld();
    redis = createRedis(world.redisUrl);
    await waitFor(() => redis.status === "ready", { what: "Redis connection" });
  });
  afterAll(async () => {
    await deleteKeys(redis, world.redisPrefix);
    redis.disconnect();
    await world.destroy();
  });

  it("sets the headers on allowed responses and answers 429 RATE_LIMITED beyond the limit", async () => {
    const errors: unknown[] = [];
    const { url, server } = await startApp(createRateLimiter(redis, { prefix: world.redisPrefix }), errors);
    try {
      const headers = { "x-test-account": `acc_mw_${Date.now()}` };
      const second = await waitForFreshWindow(redis);
      const first = await fetch(`${url}/ping`, { headers });
      const secondResponse = await fetch(`${url}/ping`, { headers });
      const refused = await fetch(`${url}/ping`, { headers });

      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-limit")).toBe("2");
      expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
      expect(first.headers.get("x-ratelimit-reset")).toBe(String(second + 1));
      expect(first.headers.get("retry-after")).toBeNull();
      expect(secondResponse.headers.get("x-ratelimit-remaining")).toBe("0");

      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(refused.headers.get("x-ratelimit-reset")).toBe(String(second + 1));
      expect(await refused.json()).toEqual({
        error: {
          code: "RATE_LIMITED",
          message: expect.stringContaining("2 per second"),
          request_id: "req_test",
        },
      });
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(ApiError);
      expect((errors[0] as ApiError).options.retryAfterSeconds).toBe(1);
    } finally {
      await stop(server);
    }
  });

  it("lets a request without an account through uncounted and without headers", async () => {
    const { url, server } = await startApp(createRateLimiter(redis, { prefix: world.redisPrefix }), []);
    try {
      const response = await fetch(`${url}/ping`);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    } finally {
      await stop(server);
    }
  });

  it("passes the Redis error to next() when Redis is unreachable: 503 within 2 s, no crash", async () => {
    const down = createRedis(`redis://127.0.0.1:${await freePort()}`);
    const errors: unknown[] = [];
    const { url, server } = await startApp(createRateLimiter(down, { prefix: world.redisPrefix }), errors);
    try {
      const started = Date.now();
      const response = await fetch(`${url}/ping`, {
        headers: { "x-test-account": "acc_down" },
        signal: AbortSignal.timeout(2000),
      });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(response.status).toBe(503);
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
      expect(errors).toHaveLength(1);
      expect(errors[0]).not.toBeInstanceOf(ApiError);
      expect(isDependencyOutage(errors[0])).toBe(true);
      // The server is still up for the next request.
      expect((await fetch(`${url}/ping`, { signal: AbortSignal.timeout(2000) })).status).toBe(200);
    } finally {
      await stop(server);
      down.disconnect();
    }
  });
});
