import type { Server } from "node:http";
import express from "express";
import { healthRoutes, listenExpress, readinessChecks } from "@sms/service-runtime";
import type { Logger } from "@sms/logger";
import { MetricsRegistry, QueueMetrics } from "@sms/metrics";
import { openQueue, QUEUES } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { carrierHealthRouter } from "./carrier-health.page";
import { basicAuth, queueBoardRouter } from "./queue-board";
import type { OpsConsoleConfig } from "./config";

export interface RunningOpsConsole {
  server: Server;
  port: number;
  /** Not ready, close the port, the queues and Redis. */
  stop(): Promise<void>;
}

/** Bull Board over every queue of the platform, behind the operator credential, with health and queue-depth metrics. */
export async function startOpsConsole(config: OpsConsoleConfig, logger: Logger): Promise<RunningOpsConsole> {
  const connection = createRedis(config.REDIS_URL, "queue");
  // Reads that must fail fast when Redis is down (the queue connection waits for ever).
  const commands = createRedis(config.REDIS_URL, "command");
  const context = { connection, prefix: config.REDIS_PREFIX };
  const queues = Object.values(QUEUES).map((name) => openQueue(context, name));
  const metrics = new MetricsRegistry();
  const queueMetrics = new QueueMetrics(metrics);
  for (const queue of queues) queueMetrics.watchDepth(queue.name, queue);

  let stopping = false;
  const app = express();
  app.disable("x-powered-by");
  app.use(healthRoutes(readinessChecks({ redis: connection }), () => stopping, metrics));
  app.use(
    basicAuth({
      user: config.OPS_CONSOLE_USER,
      passwordHash: config.OPS_CONSOLE_PASSWORD_HASH,
      realm: "SMS platform operations",
      freeFailures: config.OPS_CONSOLE_AUTH_FREE_FAILURES,
      maxDelayMs: config.OPS_CONSOLE_AUTH_MAX_DELAY_MS,
    }),
  );
  app.use(carrierHealthRouter(commands, config.REDIS_PREFIX));
  app.use(
    queueBoardRouter({
      queues,
      basePath: "/",
      readOnly: config.OPS_CONSOLE_READ_ONLY,
      uiPath: config.OPS_CONSOLE_UI_PATH,
    }),
  );
  const server = listenExpress(app, config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  logger.info("ops-console listening", {
    port,
    queues: queues.map((q) => q.name),
    read_only: config.OPS_CONSOLE_READ_ONLY,
  });

  let stopped: Promise<void> | null = null;
  const stop = async () => {
    stopping = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
    // BullMQ leaves a caller-supplied ioredis connection open on close(); we close ours.
    connection.disconnect();
    commands.disconnect();
    logger.info("ops-console stopped");
  };
  return { server, port, stop: () => (stopped ??= stop()) };
}
