import { createDatabase, type Database } from "@sms/db";
import type { Logger } from "@sms/logger";
import { startOutboxRelay } from "@sms/outbox-relay";
import {
  createSmppReceiptProducer,
  createWebhookDeliverProducer,
  CLASSES_WORKED,
  WEBHOOK_QUEUES,
  type Job,
  type QueueContext,
  type WebhookDeliverJob,
  type WebhookDeliverProducer,
} from "@sms/queues";
import { createRedis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import { orderedStop, registerWorker, startHealthServer } from "@sms/service-runtime";
import { WebhookEndpoints } from "@sms/webhooks";
import { createWebhookSender } from "@sms/webhooks";
import type { WebhookDeliveryConfig } from "./config";
import { deliverBatch, type DeliverContext } from "./deliver.processor";
import { DeliveryStore } from "./delivery-store";
import { EndpointHealth } from "./endpoint-health";
import { createEndpointLeases } from "./endpoint-leases";
import { WebhookDeliveryMetrics } from "./metrics";
import { startWebhookReconciler } from "./reconciler";

export interface RunningWebhookDelivery {
  port: number;
  reconcileOnce(): Promise<number>;
  /** SIGTERM path: not ready, stop taking jobs, give running attempts until the bound, then close everything. */
  stop(): Promise<void>;
}

export async function startWebhookDelivery(
  config: WebhookDeliveryConfig,
  logger: Logger,
): Promise<RunningWebhookDelivery> {
  const database = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: "webhook-delivery",
    connectTimeoutMs: 30_000,
  });
  const redis = createRedis(config.REDIS_URL, "command");
  const queueConnection = createRedis(config.REDIS_URL, "queue");
  const queueContext = { connection: queueConnection, prefix: config.REDIS_PREFIX };
  const policy = { allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK, allowHttp: config.WEBHOOK_ALLOW_HTTP };
  const box = createSecretBox(config.SECRET_ENCRYPTION_KEY);
  const endpoints = new WebhookEndpoints(database.prisma, box, policy);
  const sender = createWebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, ...policy });
  const metrics = new WebhookDeliveryMetrics({ relay: config.EVENT_RELAY_HIGH });
  const producer = createWebhookDeliverProducer(queueContext);
  let stopping = false;
  // Rows and endpoint slots are held for a batch's bound plus its last attempt, and a little more.
  const holdMs = config.WEBHOOK_BATCH_MAX_MS + config.WEBHOOK_TIMEOUT_MS + 5000;
  const context: DeliverContext = {
    store: new DeliveryStore(database.pool, config.WEBHOOK_RECONCILE_STALE_MS - holdMs),
    endpoints: new EndpointHealth(endpoints, database.pool, box, logger, {
      cacheMs: config.WEBHOOK_ENDPOINT_CACHE_MS,
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    }),
    leases: createEndpointLeases(redis, {
      prefix: config.REDIS_PREFIX,
      cap: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      leaseMs: holdMs,
    }),
    sender: metrics.webhooks.instrumentSender(sender),
    enqueue: (batches) => producer.enqueueBatches(batches),
    wake: (jobIds) => producer.promote(jobIds),
    logger,
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    capWaitMs: config.WEBHOOK_CAP_WAIT_MS,
    batchMaxMs: config.WEBHOOK_BATCH_MAX_MS,
    claimMs: holdMs,
    isStopping: () => stopping,
  };
  // One worker per class: a process of `high` alone (the lane) takes OTPs' webhooks while this
  // one's event loop is busy with another account's campaign; `standard` works bulk's queue beside
  // its own, so a campaign's jobs never hold the slots of other accounts' single sends.
  const workers = config.WEBHOOK_CLASSES.flatMap((setting) => CLASSES_WORKED[setting]).map((webhookClass) =>
    registerWorker<WebhookDeliverJob>(
      queueContext,
      WEBHOOK_QUEUES[webhookClass],
      async (job: Job<WebhookDeliverJob>, token?: string) => deliverBatch(context, job, token),
      {
        logger,
        metrics: metrics.queues,
        worker: {
          concurrency: config.WEBHOOK_CONCURRENCY,
          // Longer than one attempt's bound (checked in config), so a slow endpoint never makes a job look stalled.
          lockDuration: config.WEBHOOK_LOCK_MS,
          stalledInterval: config.WEBHOOK_STALLED_CHECK_MS,
          // Jobs of a worker that died are taken over and sent again, with the same webhook-id.
          maxStalledCount: 1000,
        },
        failed: {
          message: "webhook job failed; BullMQ retries it",
          fields: (job) => ({ account_id: job?.data.accountId, deliveries: job?.data.eventIds.length }),
        },
        errorMessage: "webhook worker error",
      },
    ),
  );
  const reconciler = startWebhookReconciler({
    pool: database.pool,
    producer,
    logger,
    staleMs: config.WEBHOOK_RECONCILE_STALE_MS,
    intervalMs: config.WEBHOOK_RECONCILE_INTERVAL_MS,
  });
  const relay = startHighEventRelay(config, database.pool, queueContext, producer, metrics, logger);
  const health = await startHealthServer({
    port: config.PORT,
    readiness: { postgres: database.pool, redis },
    isShuttingDown: () => stopping,
    metrics,
  });
  logger.info("webhook-delivery started", {
    port: health.port,
    classes: config.WEBHOOK_CLASSES,
    concurrency: config.WEBHOOK_CONCURRENCY,
  });

  const stop = orderedStop({
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    steps: [
      // Running batches start no new attempt from here: they finish the open ones and hand the
      // rest on as new jobs (same claim).
      { name: "readiness", run: () => (stopping = true) },
      { name: "reconciler", run: () => reconciler.stop() },
      // Its last claim commits or rolls back whole; the jobs it queued are the workers' below.
      { name: "relay", run: () => relay?.stop() },
      {
        // Attempts still waiting on slow endpoints at the bound: their jobs stay active in Redis
        // and another worker takes them over as stalled, claim and all (same webhook-id,
        // at-least-once).
        name: "worker",
        run: async () => {
          const closed = await Promise.all(workers.map((worker) => worker.close(config.SHUTDOWN_TIMEOUT_MS)));
          if (closed.includes(false))
            logger.warn("attempts still running at the shutdown bound; handed them back");
        },
      },
      { name: "producer", run: () => producer.close().catch(() => undefined) },
      { name: "relay producer", run: () => relay?.closeProducer() },
      { name: "sender", run: () => sender.close() },
      {
        name: "redis",
        run: () => {
          queueConnection.disconnect();
          redis.disconnect();
        },
      },
      { name: "database", run: () => database.close().catch(() => undefined) },
      { name: "health port", run: () => health.close() },
      { name: "log", run: () => logger.info("webhook-delivery stopped") },
    ],
  });
  return { port: health.port, reconcileOnce: () => reconciler.runOnce(), stop };
}

/**
 * The relay of the high messages' events (EVENT_RELAY_HIGH, set on the high lane): they become
 * deliveries on webhook.deliver.high within EVENT_RELAY_IDLE_MS at this process's CPU priority,
 * while the scheduler's relay works through a campaign's backlog at its own.
 */
function startHighEventRelay(
  config: WebhookDeliveryConfig,
  pool: Database["pool"],
  queueContext: QueueContext,
  webhooks: WebhookDeliverProducer,
  metrics: WebhookDeliveryMetrics,
  logger: Logger,
) {
  if (!config.EVENT_RELAY_HIGH) return undefined;
  // A final event of a high message submitted over SMPP owes its customer a receipt, as in the scheduler.
  const smppReceipts = createSmppReceiptProducer(queueContext);
  const loop = startOutboxRelay({
    pool,
    producers: { webhooks, smppReceipts },
    logger,
    batchSize: config.EVENT_RELAY_BATCH_SIZE,
    idleMs: config.EVENT_RELAY_IDLE_MS,
    highOnly: true,
    onBatch: (result) => metrics.relay?.record(result),
  });
  return {
    stop: () => loop.stop(),
    closeProducer: () => smppReceipts.close().catch(() => undefined),
  };
}
