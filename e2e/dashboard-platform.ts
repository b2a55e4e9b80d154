// The platform around the dashboard for the browser test, all real and in this process:
// gateway, carrier simulator, dispatcher, dlr-ingest, event relay, webhook-delivery.
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createLogger } from "@sms/logger";
import { createSmppReceiptProducer, createWebhookDeliverProducer } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { startOutboxRelay } from "@sms/outbox-relay";
import { startTestGateway, type TestGateway } from "@sms/api-gateway/test/harness";
import { createCarrierSimulator } from "@sms/carrier-simulator";
import { loadDispatcherConfig } from "@sms/dispatcher";
import { startDispatcher } from "@sms/dispatcher";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest } from "@sms/dlr-ingest";
import { loadWebhookDeliveryConfig } from "@sms/webhook-delivery";
import { startWebhookDelivery } from "@sms/webhook-delivery";

export interface Platform {
  world: TestWorld;
  db: Database;
  gateway: TestGateway;
  stop(): Promise<void>;
}

export async function startPlatform(): Promise<Platform> {
  const logger = createLogger("dashboard-e2e", process.env.TEST_LOG_LEVEL ?? "error");
  const world = await createTestWorld();
  const stops: Array<() => Promise<void> | void> = [() => world.destroy()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const db = createDatabase(world.databaseUrl, { poolSize: 4 });
    stops.push(() => db.close());
    const simulator = await createCarrierSimulator({ settings: { receiptDelayMs: 50 }, logger });
    stops.push(() => simulator.close());
    await db.prisma.carrier.create({
      data: {
        id: "sim",
        name: "simulator",
        host: "127.0.0.1",
        port: simulator.smppPort,
        systemId: "platform",
        password: "secret",
        windowSize: 20,
        submitsPerSecond: 1000,
      },
    });
    await db.prisma.route.create({ data: { id: newId("snd"), prefix: "+", carrierId: "sim" } });
    const gateway = await startTestGateway({ OUTBOX_RELAY_INTERVAL_MS: "200" }, world);
    stops.push(() => gateway.stop());
    const env = { ...world.env, PORT: "0", HOST: "127.0.0.1", CARRIER_REFRESH_MS: "200" };
    const dispatcher = await startDispatcher(loadDispatcherConfig(env), logger);
    stops.push(() => dispatcher.stop());
    const dlr = await startDlrIngest(loadDlrIngestConfig(env), logger);
    stops.push(() => dlr.stop());
    const connection = createRedis(world.redisUrl, "queue");
    const context = { connection, prefix: world.redisPrefix };
    const producers = {
      webhooks: createWebhookDeliverProducer(context),
      smppReceipts: createSmppReceiptProducer(context),
    };
    const relay = startOutboxRelay({ pool: db.pool, producers, logger, batchSize: 500, idleMs: 50 });
    stops.push(async () => {
      await relay.stop();
      await producers.webhooks.close();
      await producers.smppReceipts.close();
      connection.disconnect();
    });
    const hooks = await startWebhookDelivery(
      loadWebhookDeliveryConfig({
        ...env,
        WEBHOOK_ALLOW_LOOPBACK: "true",
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ENDPOINT_CACHE_MS: "0",
        LOG_LEVEL: "error",
      }),
      logger,
    );
    stops.push(() => hooks.stop());
    await waitFor(() => (dispatcher.carriers.status().sim?.bound ?? 0) > 0, {
      what: "the dispatcher's carrier bind",
    });
    return { world, db, gateway, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
