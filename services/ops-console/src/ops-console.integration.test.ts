import http from "node:http";
import { hashPassword } from "@sms/auth";
import { CarrierHealthStore, nextTransition } from "@sms/carrier-health";
import { createLogger } from "@sms/logger";
import { sampleValue } from "@sms/metrics";
import { openQueue, QUEUES } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { loadOpsConsoleConfig } from "./config";
import { startOpsConsole, type RunningOpsConsole } from "./service";

const PASSWORD = "correct horse battery staple";
let world: TestWorld;
let connection: Redis;
let console_: RunningOpsConsole;
let base: string;

beforeAll(async () => {
  world = await createTestWorld();
  connection = createRedis(world.redisUrl, "queue");
  // Real jobs waiting in the platform's queue, under this test's prefix.
  const dispatch = openQueue({ connection, prefix: world.redisPrefix }, QUEUES.smsDispatchNormal);
  await dispatch.addBulk(
    ["msg_a", "msg_b", "msg_c"].map((messageId) => ({
      name: "dispatch",
      data: { messageId },
      opts: { jobId: messageId },
    })),
  );
  await dispatch.close();
  const config = loadOpsConsoleConfig({
    ...world.env,
    PORT: "0",
    HOST: "127.0.0.1",
    OPS_CONSOLE_PASSWORD_HASH: await hashPassword(PASSWORD),
  });
  console_ = await startOpsConsole(config, createLogger("ops-console-test", "error"));
  base = `http://127.0.0.1:${console_.port}`;
});
afterAll(async () => {
  await console_?.stop();
  connection?.disconnect();
  await world?.destroy();
});

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("ops-console (real Redis, BullMQ, HTTP)", () => {
  it("asks for the credential: 401 with a Basic challenge without it or with a wrong one", async () => {
    const bare = await fetch(`${base}/`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toMatch(/^Basic realm="SMS platform operations"/);
    expect((await fetch(`${base}/api/queues`)).status).toBe(401);
    for (const wrong of [basic("ops", "wrong password"), basic("root", PASSWORD), "Bearer x", "Basic !!"]) {
      expect((await fetch(`${base}/api/queues`, { headers: { authorization: wrong } })).status).toBe(401);
    }
  });

  it("shows the carriers' health the dispatchers share: breaker, error rate, window use", async () => {
    const store = new CarrierHealthStore(connection, { prefix: world.redisPrefix, windowMs: 30_000 });
    const replica = { instance: "d1:1", outstanding: 7, window: 20, bound: 2, binds: 2 };
    await store.sync("<acme>", { ok: 10, failed: 0 }, replica);
    const report = await store.sync("bad-carrier", { ok: 2, failed: 18 }, replica);
    const settings = { windowMs: 30_000, minSubmits: 20, failurePercent: 50, openMs: 30_000, probes: 5 };
    await store.transition(
      "bad-carrier",
      report.record,
      nextTransition(report.record, report.now, settings)!,
    );

    expect((await fetch(`${base}/carriers.json`)).status).toBe(401);
    const headers = { authorization: basic("ops", PASSWORD) };
    const json = (await (await fetch(`${base}/carriers.json`, { headers })).json()) as {
      carriers: unknown[];
    };
    expect(json.carriers).toEqual([
      expect.objectContaining({
        carrier_id: "<acme>",
        state: "closed",
        error_rate: 0,
        window_outstanding: 7,
      }),
      expect.objectContaining({
        carrier_id: "bad-carrier",
        state: "open",
        error_rate: 0.9,
        window_submits: 20,
        trips: 1,
      }),
    ]);
    const html = await (await fetch(`${base}/carriers`, { headers })).text();
    expect(html).toContain("<td>&#60;acme&#62;</td>");
    expect(html).toMatch(
      /<tr class="open"><td>bad-carrier<\/td><td>open until [^<]+<\/td><td>90% of 20<\/td><td>7\/20<\/td>/,
    );
  });

  it("serves Bull Board with the credential and lists every queue of the platform, read-only", async () => {
    const authorization = basic("ops", PASSWORD);
    const page = await fetch(`${base}/`, { headers: { authorization } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("SMS queues");

    const api = await fetch(`${base}/api/queues?activeQueue=sms.dispatch.normal&status=waiting&page=1`, {
      headers: { authorization },
    });
    expect(api.status).toBe(200);
    const body = (await api.json()) as {
      queues: Array<{ name: string; counts: Record<string, number>; readOnlyMode: boolean; jobs: unknown[] }>;
    };
    expect(body.queues.map((q) => q.name).sort()).toEqual(Object.values(QUEUES).sort());
    const dispatch = body.queues.find((q) => q.name === QUEUES.smsDispatchNormal)!;
    expect(dispatch.counts.waiting).toBe(3);
    expect(dispatch.jobs).toHaveLength(3);
    expect(body.queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it("keeps probes and metrics open, and reports every queue's depth", async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(sampleValue(text, "sms_queue_jobs", { queue: QUEUES.smsDispatchNormal, state: "waiting" })).toBe(
      3,
    );
    expect(sampleValue(text, "sms_queue_jobs", { queue: QUEUES.webhookDeliver, state: "waiting" })).toBe(0);
    expect(sampleValue(text, "sms_queue_jobs", { queue: QUEUES.smppDlrOut, state: "waiting" })).toBe(0);
  });
});

describe("ops-console sign-in throttle", () => {
  let throttled: RunningOpsConsole;
  beforeAll(async () => {
    const config = loadOpsConsoleConfig({
      ...world.env,
      PORT: "0",
      HOST: "0.0.0.0",
      OPS_CONSOLE_PASSWORD_HASH: await hashPassword(PASSWORD),
      OPS_CONSOLE_AUTH_FREE_FAILURES: "3",
    });
    throttled = await startOpsConsole(config, createLogger("ops-console-test", "error"));
  });
  afterAll(() => throttled?.stop());

  // From a chosen loopback address, so two clients can be told apart.
  const get = (from: string, authorization: string) =>
    new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const req = http.get(
        {
          host: "127.0.0.1",
          port: throttled.port,
          path: "/api/queues",
          localAddress: from,
          headers: { authorization },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"] }));
        },
      );
      req.on("error", reject);
    });

  it("answers 429 without a scrypt once an address has failed too often, even to the right password; other addresses still sign in", async () => {
    const wrong = basic("ops", "wrong password");
    // Parallel tries are counted as they start: only the free three get a hash.
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => get("127.0.0.2", wrong)))).map(
      (r) => r.status,
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(17);

    const right = await get("127.0.0.2", basic("ops", PASSWORD));
    expect(right.status).toBe(429);
    expect(Number(right.retryAfter)).toBeGreaterThanOrEqual(1);

    expect((await get("127.0.0.3", basic("ops", PASSWORD))).status).toBe(200);

    // The wait is over: the right password passes, and clears the address's count.
    const deadline = Date.now() + 5_000;
    let status = 429;
    while (status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await get("127.0.0.2", basic("ops", PASSWORD))).status;
    }
    expect(status).toBe(200);
  });
});
