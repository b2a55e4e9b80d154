import type { Server } from "node:http";
import { createDatabase } from "@sms/db";
import type { Logger } from "@sms/logger";
import { MetricsRegistry } from "@sms/metrics";
import { createWebhookDeliverProducer } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import {
  closeHttpServer,
  listenExpress,
  orderedStop,
  startHealthServer,
  startLoop,
} from "@sms/service-runtime";
import { WebhookEndpoints } from "@sms/webhooks";
import { createWebhookSender } from "@sms/webhooks";
import { buildApp } from "./app";
import type { DashboardConfig } from "./config";
import { purgeExpired } from "./security/housekeeping";
import { SessionStore } from "./security/sessions";

export interface RunningDashboard {
  server: Server;
  port: number;
  /** The internal port: /healthz, /readyz with each dependency's state, /metrics. */
  healthPort: number;
  /** Graceful stop: not ready, stop accepting, finish in-flight requests (bounded), close dependencies. */
  stop(): Promise<void>;
}

/** Builds and starts the dashboard; used by main.ts and the tests. */
export async function startDashboard(config: DashboardConfig, logger: Logger): Promise<RunningDashboard> {
  const db = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: "dashboard",
  });
  const redis = createRedis(config.REDIS_URL, "command");
  const queueConnection = createRedis(config.REDIS_URL, "queue");
  const webhookProducer = createWebhookDeliverProducer({
    connection: queueConnection,
    prefix: config.REDIS_PREFIX,
  });
  const policy = { allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK, allowHttp: config.WEBHOOK_ALLOW_HTTP };
  const sender = createWebhookSender({ timeoutMs: 15_000, ...policy });
  let shuttingDown = false;
  const metrics = new MetricsRegistry();
  const app = buildApp({
    metrics,
    config,
    logger,
    db,
    redis,
    sessions: new SessionStore(db.prisma, {
      lifetimeMs: config.DASHBOARD_SESSION_HOURS * 3600_000,
      idleMs: config.DASHBOARD_SESSION_IDLE_MINUTES * 60_000,
    }),
    endpoints: new WebhookEndpoints(db.prisma, createSecretBox(config.SECRET_ENCRYPTION_KEY), policy),
    sender,
    webhookProducer,
    isShuttingDown: () => shuttingDown,
  });
  const server = listenExpress(app, config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  const health = await startHealthServer({
    port: config.HEALTH_PORT,
    host: config.HOST,
    readiness: { postgres: db.pool, redis },
    isShuttingDown: () => shuttingDown,
    metrics,
  });
  logger.info("dashboard listening", { port, healthPort: health.port });
  const housekeeping = startLoop({
    name: "dashboard housekeeping",
    intervalMs: 10 * 60_000,
    logger,
    tick: async () => {
      const purged = await purgeExpired(db.prisma);
      if (purged.sessions + purged.attempts > 0)
        logger.info("purged expired sessions and old sign-in attempts", purged);
    },
  });

  const stop = orderedStop({
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    steps: [
      { name: "readiness", run: () => (shuttingDown = true) },
      { name: "housekeeping", run: () => housekeeping.stop() },
      {
        name: "requests",
        run: ({ left }) =>
          closeHttpServer(server, left(), () =>
            logger.warn("requests still running at the shutdown bound; closing their connections"),
          ),
      },
      { name: "health port", run: () => health.close() },
      { name: "sender", run: () => sender.close() },
      { name: "webhook producer", run: () => webhookProducer.close() },
      {
        name: "redis",
        run: () => {
          queueConnection.disconnect();
          redis.disconnect();
        },
      },
      { name: "database", run: () => db.close() },
      { name: "log", run: () => logger.info("dashboard stopped") },
    ],
  });
  return { server, port, healthPort: health.port, stop };
}
