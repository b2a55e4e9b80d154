import http from "node:http";
import { generateApiKey, PERMISSIONS } from "@sms/auth";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { sampleValue } from "@sms/metrics";
import {
  createTestWorld,
  freePort,
  startServiceProcess,
  terminate,
  type ServiceProcess,
  type TestWorld,
} from "@sms/testing";

let world: TestWorld;
let db: Database;
let gateway: ServiceProcess | undefined;
let port: number;
let healthPort: number;
let key: string;

beforeAll(async () => {
  world = await createTestWorld();
  db = createDatabase(world.databaseUrl, { poolSize: 2 });
  const apiKey = generateApiKey();
  key = apiKey.key;
  await db.prisma.account.create({
    data: {
      id: newId("acc"),
      name: "gateway cluster metrics",
      balance: 1000n,
      requestsPerSecond: 10_000,
      senderIds: { create: [{ id: newId("snd"), value: "ACME" }] },
      apiKeys: {
        create: {
          id: newId("key"),
          name: "t",
          prefix: apiKey.prefix,
          hash: apiKey.hash,
          permissions: [...PERMISSIONS],
        },
      },
    },
  });
  port = await freePort();
  healthPort = await freePort();
  gateway = startServiceProcess("api-gateway", {
    ...world.env,
    PORT: String(port),
    HEALTH_PORT: String(healthPort),
    HOST: "127.0.0.1",
    GATEWAY_WORKERS: "2",
  });
  await gateway.waitReady(healthPort);
}, 60_000);

afterAll(async () => {
  if (gateway) await terminate(gateway, healthPort);
  await db?.close();
  await world?.destroy();
});

/** One request on a connection of its own, so the cluster spreads them over its workers. */
function request(
  method: string,
  path: string,
  body?: unknown,
  to = port,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port: to,
        method,
        path,
        agent: false,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload
            ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe("gateway /metrics with GATEWAY_WORKERS=2 (the bundle, real HTTP)", () => {
  it("serves /metrics and /readyz on the internal port only: the public port answers /healthz", async () => {
    expect((await request("GET", "/healthz")).status).toBe(200);
    expect((await request("GET", "/metrics")).status).toBe(404);
    expect((await request("GET", "/readyz")).status).toBe(404);
    const ready = await request("GET", "/readyz", undefined, healthPort);
    expect({ status: ready.status, body: JSON.parse(ready.text) }).toEqual({
      status: 200,
      body: { status: "ready", checks: { postgres: "ok", redis: "ok" } },
    });
  });

  it("answers every scrape for the whole cluster, whichever worker takes it", async () => {
    for (let i = 0; i < 8; i++) {
      const sent = await request("POST", "/v1/sms/send", {
        to: "+14155550100",
        message: `m${i}`,
        sender_id: "ACME",
      });
      expect(sent.status).toBe(202);
    }
    const send = { method: "POST", route: "/v1/sms/send", status_code: "202" };
    for (let scrape = 0; scrape < 4; scrape++) {
      const metrics = await request("GET", "/metrics", undefined, healthPort);
      expect(metrics.status).toBe(200);
      expect(sampleValue(metrics.text, "sms_http_request_duration_seconds_count", send)).toBe(8);
      // Process metrics of both workers, summed (one worker alone has a single event loop's worth).
      expect(sampleValue(metrics.text, "sms_process_cpu_user_seconds_total")).toBeGreaterThan(0);
    }
  });
});
