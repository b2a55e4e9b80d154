import { Redis } from "ioredis";
import { createTestWorld, freePort, type TestWorld } from "@sms/testing";
import { startHealthServer } from "./index";

describe("startHealthServer readiness (real PostgreSQL and Redis)", () => {
  let world: TestWorld;
  const clients: Redis[] = [];
  beforeAll(async () => {
    world = await createTestWorld();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await world.destroy();
  });

  async function readyz(options: { redis: Redis; isShuttingDown?: () => boolean }) {
    const server = await startHealthServer({
      port: 0,
      host: "127.0.0.1",
      readiness: { postgres: world.pool(), redis: options.redis },
      isShuttingDown: options.isShuttingDown ?? (() => false),
    });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/readyz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    } finally {
      await server.close();
    }
  }

  it("is ready when PostgreSQL and Redis answer", async () => {
    const redis = new Redis(world.redisUrl);
    clients.push(redis);
    expect(await readyz({ redis })).toEqual({
      status: 200,
      body: { status: "ready", checks: { postgres: "ok", redis: "ok" } },
    });
  });

  it("names the dependency that does not answer, and answers 503 while shutting down", async () => {
    const unreachable = new Redis({
      port: await freePort(),
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    clients.push(unreachable);
    const failing = await readyz({ redis: unreachable });
    expect(failing.status).toBe(503);
    expect(failing.body.checks).toMatchObject({ postgres: "ok", redis: expect.stringMatching(/^failing/) });

    const redis = new Redis(world.redisUrl);
    clients.push(redis);
    expect(await readyz({ redis, isShuttingDown: () => true })).toEqual({
      status: 503,
      body: { status: "shutting_down" },
    });
  });
});
