import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator";
import { loadDispatcherConfig } from "@sms/dispatcher";
import { startDispatcher, type RunningDispatcher } from "@sms/dispatcher";
import { createLogger } from "@sms/logger";
import { createRedis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import {
  createTestWorld,
  startRedisCluster,
  waitFor,
  type TestRedisCluster,
  type TestWorld,
} from "@sms/testing";
// The rest of the pipeline, from source: the same code the bundles run.
import { WebhookEndpoints } from "@sms/webhooks";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest, type RunningDlrIngest } from "@sms/dlr-ingest";
import { loadSchedulerConfig } from "@sms/scheduler";
import { startScheduler, type RunningScheduler } from "@sms/scheduler";
import { loadWebhookDeliveryConfig } from "@sms/webhook-delivery";
import { startWebhookDelivery, type RunningWebhookDelivery } from "@sms/webhook-delivery";
import {
  expectError,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@sms/api-gateway/test/harness";

/**
 * The pipeline on a Redis Cluster of three masters (local redis-server processes of this test):
 * gateway accept → sms.dispatch → dispatcher → SMPP → carrier simulator → receipt → dlr-ingest
 * → delivered → event relay → webhook.deliver → the customer's endpoint; and the Lua limits
 * (requests per second, OTP sends per phone) answering from the cluster.
 */
describe("the pipeline on a Redis Cluster", () => {
  let cluster: TestRedisCluster;
  let world: TestWorld;
  let simulator: CarrierSimulator;
  let gw: TestGateway;
  let dispatcher: RunningDispatcher;
  let dlr: RunningDlrIngest;
  let scheduler: RunningScheduler;
  let webhooks: RunningWebhookDelivery;
  let receiver: http.Server;
  const hooks: Array<{ id: string; body: { event: string; message_id: string } }> = [];
  let acme: TestAccount;
  let sharedRedisUrl: string;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    const own = await createTestWorld();
    sharedRedisUrl = own.redisUrl;
    world = { ...own, redisUrl: cluster.url, env: { ...own.env, REDIS_URL: cluster.url } };
    const logger = createLogger("cluster-test", "error");
    simulator = await createCarrierSimulator({ settings: { receiptDelayMs: 20 }, logger });
    gw = await startTestGateway({}, world);
    await gw.db.prisma.carrier.create({
      data: {
        id: "sim",
        name: "sim",
        host: "127.0.0.1",
        port: simulator.smppPort,
        systemId: "platform",
        password: "secret",
        windowSize: 20,
        submitsPerSecond: 10000,
      },
    });
    await gw.db.prisma.route.create({ data: { id: "rte_all", prefix: "+", carrierId: "sim" } });
    const env = { ...world.env, PORT: "0", HOST: "127.0.0.1" };
    dispatcher = await startDispatcher(loadDispatcherConfig({ ...env, CARRIER_REFRESH_MS: "200" }), logger);
    dlr = await startDlrIngest(loadDlrIngestConfig({ ...env, CARRIER_REFRESH_MS: "200" }), logger);
    scheduler = await startScheduler(loadSchedulerConfig(env), logger);
    webhooks = await startWebhookDelivery(
      loadWebhookDeliveryConfig({ ...env, WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_ALLOW_HTTP: "true" }),
      logger,
    );
    receiver = http.createServer((req, res) => {
      let raw = "";
      req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
      req.on("end", () => {
        hooks.push({ id: String(req.headers["webhook-id"]), body: JSON.parse(raw) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    acme = await gw.createAccount({ credits: 1000 });
    const endpoints = new WebhookEndpoints(gw.db.prisma, createSecretBox(world.env.SECRET_ENCRYPTION_KEY!), {
      allowLoopback: true,
      allowHttp: true,
    });
    await endpoints.register(acme.accountId, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`);
    await waitFor(() => (dispatcher.carriers.status().sim?.bound ?? 0) > 0, { what: "carrier bind" });
  }, 60_000);

  afterAll(async () => {
    await webhooks?.stop();
    await scheduler?.stop();
    await dlr?.stop();
    await dispatcher?.stop();
    await gw?.stop();
    receiver?.close();
    await simulator?.close();
    await world?.destroy();
    await cluster?.stop();
  });

  it("delivers messages accepted by the gateway and tells the customer's endpoint", async () => {
    const messages = Array.from({ length: 20 }, (_, i) => ({
      to: `+1415559${String(1000 + i).padStart(4, "0")}`,
      message: `cluster ${i}`,
    }));
    const bulk = await gw.request("POST", "/v1/sms/bulk", {
      key: acme.key,
      body: { sender_id: "ACME", messages },
    });
    expect(bulk.status).toBe(202);
    const ids: string[] = bulk.body.messages.map((m: { message_id: string }) => m.message_id);
    expect(ids).toHaveLength(messages.length);
    await waitFor(
      async () =>
        (await gw.db.prisma.message.count({ where: { id: { in: ids }, status: "delivered" } })) ===
        ids.length,
      { timeoutMs: 30_000, what: "every message delivered" },
    );
    await waitFor(
      () =>
        new Set(hooks.filter((h) => h.body.event === "message.delivered").map((h) => h.body.message_id))
          .size === ids.length,
      { timeoutMs: 30_000, what: "a message.delivered webhook for every message" },
    );
    // The keys really are spread over the masters: the queues and the limits live in several slots.
    const keysPerMaster = await Promise.all(
      cluster.ports.map(async (port) => {
        const node = createRedis(`redis://127.0.0.1:${port}`);
        try {
          return (await node.keys(`${world.redisPrefix}:*`)).length;
        } finally {
          node.disconnect();
        }
      }),
    );
    expect(keysPerMaster.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    // And none went to the shared Redis: every service took the cluster URL.
    const shared = createRedis(sharedRedisUrl);
    try {
      expect(await shared.keys(`${world.redisPrefix}:*`)).toEqual([]);
    } finally {
      shared.disconnect();
    }
  }, 90_000);

  it("enforces requests per second and OTP sends per phone from the cluster", async () => {
    const limited = await gw.createAccount({ credits: 100, requestsPerSecond: 3 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => gw.request("GET", "/v1/account", { key: limited.key })),
    );
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    // One second's window allows 3; a burst crossing a second boundary at most twice that.
    expect(answers.filter((a) => a.status === 200).length).toBeLessThanOrEqual(6);
    expectError(refused[0]!, 429, "RATE_LIMITED");

    const otp = (phone: string) =>
      gw.request("POST", "/v1/otp/send", { key: acme.key, body: { phone, length: 6, expiry: 300 } });
    for (let i = 0; i < 5; i++) expect((await otp("+14155550123")).status).toBe(201);
    expectError(await otp("+14155550123"), 429, "OTP_SEND_LIMIT");
    expect((await otp("+14155550124")).status).toBe(201);
  }, 60_000);
});
