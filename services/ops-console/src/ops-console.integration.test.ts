import { createLogger } from "@sms/logger";
import { sampleValue } from "@sms/metrics";
import { hashPassword } from "@sms/queue-board";
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
  const dispatch = openQueue({ connection, prefix: world.redisPrefix }, QUEUES.smsDispatch);
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

  it("serves Bull Board with the credential and lists every queue of the platform, read-only", async () => {
    const authorization = basic("ops", PASSWORD);
    const page = await fetch(`${base}/`, { headers: { authorization } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("SMS queues");

    const api = await fetch(`${base}/api/queues?activeQueue=sms.dispatch&status=waiting&page=1`, {
      headers: { authorization },
    });
    expect(api.status).toBe(200);
    const body = (await api.json()) as {
      queues: Array<{ name: string; counts: Record<string, number>; readOnlyMode: boolean; jobs: unknown[] }>;
    };
    expect(body.queues.map((q) => q.name).sort()).toEqual(Object.values(QUEUES).sort());
    const dispatch = body.queues.find((q) => q.name === QUEUES.smsDispatch)!;
    expect(dispatch.counts.waiting).toBe(3);
    expect(dispatch.jobs).toHaveLength(3);
    expect(body.queues.every((q) => q.readOnlyMode)).toBe(true);
  });

  it("keeps probes and metrics open, and reports every queue's depth", async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(sampleValue(text, "sms_queue_jobs", { queue: QUEUES.smsDispatch, state: "waiting" })).toBe(3);
    expect(sampleValue(text, "sms_queue_jobs", { queue: QUEUES.webhookDeliver, state: "waiting" })).toBe(0);
    expect(sampleValue(text, "sms_queue_jobs", { queue: QUEUES.smppDlrOut, state: "waiting" })).toBe(0);
  });
});
