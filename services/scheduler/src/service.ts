import { createDatabase } from "@sms/db";
import type { Logger } from "@sms/logger";
import { DispatchOutbox } from "@sms/message-acceptance";
import { startOutboxRelay } from "@sms/outbox-relay";
import { createDispatchProducer, createSmppReceiptProducer, createWebhookDeliverProducer } from "@sms/queues";
import { createRedis } from "@sms/redis";
import type { SchedulerConfig } from "./config";
import { orderedStop, settlesWithin, startHealthServer } from "@sms/service-runtime";
import { SchedulerMetrics } from "./metrics";
import { startExpirySweeps } from "./expiry";
import { startMessageCountsFold } from "./message-counts";
import { startReconciler } from "./reconciler";
import { startPromotion } from "./scheduler";
import { startRetention } from "./retention/loop";

export interface RunningScheduler {
  /** Port of /healthz, /readyz and /metrics. */
  port: number;
  metrics: SchedulerMetrics;
  /**
   * Graceful stop: not ready, stop both loops after their current tick, finish the
   * last hand-offs (all bounded by SHUTDOWN_TIMEOUT_MS), then close the queue, Redis,
   * the database and the HTTP port. Anything not handed off stays in dispatch_outbox.
   */
  stop(): Promise<void>;
}

/** Starts the promotion loop, the reconciler, the expiry sweeps, retention, the event relay and the health port; used by main.ts and the tests. */
export async function startScheduler(config: SchedulerConfig, logger: Logger): Promise<RunningScheduler> {
  const database = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: "scheduler",
  });
  const redis = createRedis(config.REDIS_URL, "command");
  const queueConnection = createRedis(config.REDIS_URL, "queue");
  const producer = createDispatchProducer({ connection: queueConnection, prefix: config.REDIS_PREFIX });
  const outbox = new DispatchOutbox(database.pool, producer, logger, {
    chunkSize: config.SCHEDULER_BATCH_SIZE,
    staleAfterMs: config.OUTBOX_STALE_AFTER_MS,
  });
  const queueContext = { connection: queueConnection, prefix: config.REDIS_PREFIX };
  const eventProducers = {
    webhooks: createWebhookDeliverProducer(queueContext),
    smppReceipts: createSmppReceiptProducer(queueContext),
  };
  const metrics = new SchedulerMetrics(database.pool);
  let shuttingDown = false;
  const http = await startHealthServer({
    port: config.PORT,
    host: config.HOST,
    readiness: { postgres: database.pool, redis },
    isShuttingDown: () => shuttingDown,
    metrics: metrics.registry,
  });
  const promotion = startPromotion(database.pool, outbox, metrics, logger, {
    intervalMs: config.SCHEDULER_INTERVAL_MS,
    batchSize: config.SCHEDULER_BATCH_SIZE,
    handOffTimeoutMs: config.HANDOFF_TIMEOUT_MS,
  });
  const reconciler = startReconciler(database.pool, outbox, producer, metrics, logger, {
    intervalMs: config.RECONCILE_INTERVAL_MS,
    staleAfterMs: config.RECONCILE_STALE_AFTER_MS,
    batchSize: config.RECONCILE_BATCH_SIZE,
    maxPerTick: config.RECONCILE_MAX_PER_TICK,
    pingRedis: () => redis.ping(),
  });
  const expiry = startExpirySweeps(database.pool, metrics, logger, {
    intervalMs: config.EXPIRY_INTERVAL_MS,
    batchSize: config.EXPIRY_BATCH_SIZE,
    maxPerTick: config.EXPIRY_MAX_PER_TICK,
    receiptGraceSeconds: config.RECEIPT_TIMEOUT_GRACE_SECONDS,
  });
  const retention = startRetention(database.pool, metrics, logger, {
    intervalMs: config.RETENTION_INTERVAL_MS,
    batchSize: config.RETENTION_BATCH_SIZE,
    maxPerTable: config.RETENTION_MAX_PER_TABLE,
    policy: {
      messages: config.RETENTION_MESSAGES_DAYS,
      webhooks: config.RETENTION_WEBHOOKS_DAYS,
      outbox: config.RETENTION_OUTBOX_DAYS,
      receipts: config.RETENTION_RECEIPTS_DAYS,
      signIns: config.RETENTION_SIGN_INS_DAYS,
      otps: config.RETENTION_OTPS_DAYS,
      ledger: config.RETENTION_LEDGER_DAYS,
    },
  });
  const messageCounts = startMessageCountsFold(database.pool, metrics, logger, {
    intervalMs: config.MESSAGE_COUNTS_INTERVAL_MS,
    batchSize: config.MESSAGE_COUNTS_BATCH_SIZE,
  });
  const eventRelay = startOutboxRelay({
    pool: database.pool,
    producers: eventProducers,
    logger,
    batchSize: config.EVENT_RELAY_BATCH_SIZE,
    idleMs: config.EVENT_RELAY_IDLE_MS,
    onBatch: (result) => metrics.flow.record(result),
  });
  logger.info("scheduler started", { port: http.port });

  const loops = [promotion, reconciler, expiry, retention, messageCounts, eventRelay];
  const stop = orderedStop({
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    steps: [
      { name: "readiness", run: () => (shuttingDown = true) },
      {
        name: "loops",
        run: async ({ within }) => {
          if (!(await within(Promise.all(loops.map((loop) => loop.stop())))))
            logger.warn(
              "a tick did not finish within the shutdown bound; its work is left to the outbox relay",
            );
        },
      },
      {
        name: "hand-offs",
        run: async ({ within }) => {
          if (!(await within(outbox.stop())))
            logger.warn("hand-offs did not finish within the shutdown bound; dispatch_outbox keeps them");
        },
      },
      {
        name: "producers",
        run: ({ within }) =>
          within(
            Promise.all([
              producer.close(),
              eventProducers.webhooks.close(),
              eventProducers.smppReceipts.close(),
            ]),
          ),
      },
      {
        // BullMQ leaves a caller-supplied ioredis connection open on close(); we close ours.
        name: "redis",
        run: () => {
          queueConnection.disconnect();
          redis.disconnect();
        },
      },
      {
        // pool.end() waits for checked-out clients: one parked by a tick that overran the
        // bound would hold it forever. Exiting drops the connection and PostgreSQL rolls it back.
        name: "database",
        run: async ({ left }) => {
          if (!(await settlesWithin(database.close(), Math.max(left(), 1000))))
            logger.warn("the database pool did not close within the shutdown bound");
        },
      },
      { name: "health port", run: () => http.close() },
      { name: "log", run: () => logger.info("scheduler stopped") },
    ],
  });
  return {
    port: http.port,
    metrics,
    stop,
  };
}
