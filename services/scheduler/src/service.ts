import { startHealthServer } from "@sms/health";
import { createDatabase } from "@sms/db";
import type { Logger } from "@sms/logger";
import { DispatchOutbox } from "@sms/message-acceptance";
import { startOutboxRelay } from "@sms/outbox-relay";
import { createDispatchProducer, createSmppReceiptProducer, createWebhookDeliverProducer } from "@sms/queues";
import { createRedis } from "@sms/redis";
import type { SchedulerConfig } from "./config";
import { settlesWithin } from "@sms/service-runtime";
import { SchedulerMetrics } from "./metrics";
import { startExpirySweeps } from "./expiry";
import { startReconciler } from "./reconciler";
import { startPromotion } from "./scheduler";

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

/** Starts the promotion loop, the reconciler and the health port; used by main.ts and the tests. */
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
  const http = await startHealthServer(
    config.PORT,
    {
      postgres: async () => void (await database.pool.query("SELECT 1")),
      redis: async () => void (await redis.ping()),
    },
    () => shuttingDown,
    config.HOST,
    metrics.registry,
  );
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
  const eventRelay = startOutboxRelay({
    pool: database.pool,
    producers: eventProducers,
    logger,
    batchSize: config.EVENT_RELAY_BATCH_SIZE,
    idleMs: config.EVENT_RELAY_IDLE_MS,
    onBatch: (result) => metrics.flow.record(result),
  });
  logger.info("scheduler started", { port: http.port });

  let stopped: Promise<void> | null = null;
  const stop = async () => {
    shuttingDown = true;
    const deadline = Date.now() + config.SHUTDOWN_TIMEOUT_MS;
    const left = () => Math.max(0, deadline - Date.now());
    if (
      !(await settlesWithin(
        Promise.all([promotion.stop(), reconciler.stop(), expiry.stop(), eventRelay.stop()]),
        left(),
      ))
    )
      logger.warn("a tick did not finish within the shutdown bound; its work is left to the outbox relay");
    if (!(await settlesWithin(outbox.stop(), left())))
      logger.warn("hand-offs did not finish within the shutdown bound; dispatch_outbox keeps them");
    await settlesWithin(
      Promise.all([producer.close(), eventProducers.webhooks.close(), eventProducers.smppReceipts.close()]),
      left(),
    );
    // BullMQ leaves a caller-supplied ioredis connection open on close(); we close ours.
    queueConnection.disconnect();
    redis.disconnect();
    // pool.end() waits for checked-out clients: one parked by a tick that overran the
    // bound would hold it forever. Exiting drops the connection and PostgreSQL rolls it back.
    if (!(await settlesWithin(database.close(), Math.max(left(), 1000))))
      logger.warn("the database pool did not close within the shutdown bound");
    await http.close();
    logger.info("scheduler stopped");
  };
  return {
    port: http.port,
    metrics,
    stop: () => (stopped ??= stop()),
  };
}
