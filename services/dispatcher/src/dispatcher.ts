import { createDatabase } from "@sms/db";
import type { Logger } from "@sms/logger";
import {
  createDispatchProducer,
  DISPATCH_QUEUES,
  type DispatchJob,
  type Job,
  type Priority,
} from "@sms/queues";
import { createCarrierBudget, createPacer } from "@sms/rate-limit";
import { createRedis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import { createDeliverSmHandler } from "@sms/carrier-receipts";
import { keywordsOnInbound } from "@sms/suppressions";
import {
  InFlight,
  orderedStop,
  registerWorker,
  settlesWithin,
  startHealthServer,
  startLoop,
} from "@sms/service-runtime";
import { Batcher, PIPELINE_WRITE_LINGER_MS } from "@sms/db";
import { CarrierHealthStore } from "@sms/carrier-health";
import { CarrierPool } from "./carrier-pool";
import { CarrierHealth } from "./carrier-health";
import type { DispatcherConfig } from "./config";
import { AccountRates } from "./account-rates";
import { dispatchBatch, type BatchContext } from "./dispatch-batch.processor";
import { DispatcherMetrics } from "./metrics";
import { INSTANCE_NAME } from "./instance";
import { markSubmitting, recordSubmitted } from "./segments.sql";

export interface RunningDispatcher {
  port: number;
  carriers: CarrierPool;
  /** The carriers' breakers as this replica last read them. */
  health: CarrierHealth;
  /** SIGTERM path: not ready, stop taking jobs, let in-flight ones finish, close binds, Redis, database. */
  stop(): Promise<void>;
}

/** The group commits of segment marks and of submit records (docs/decisions.md#delivery-pipeline). */
const SEGMENT_WRITES = { maxBatch: 500, maxConcurrent: 2, lingerMs: PIPELINE_WRITE_LINGER_MS };

/** Starts the dispatch workers (one per class) with their carrier binds and health port. */
export async function startDispatcher(config: DispatcherConfig, logger: Logger): Promise<RunningDispatcher> {
  const database = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: "dispatcher",
    // Jobs waiting for a connection is backpressure, not an outage.
    connectTimeoutMs: 30_000,
  });
  const redis = createRedis(config.REDIS_URL, "command");
  const queueConnection = createRedis(config.REDIS_URL, "queue");
  const box = createSecretBox(config.SECRET_ENCRYPTION_KEY);
  // Read at scrape time only, once the pool below exists.
  const metrics = new DispatcherMetrics({ status: () => carriers.status() });
  // Receipts on transceiver binds are stored here, as dlr-ingest stores those on receiver binds.
  let receiptsStopping = false;
  const receiptsInFlight = new InFlight();
  const handleDeliverSm = createDeliverSmHandler({
    pool: database.pool,
    logger,
    metrics: metrics.receipts,
    isStopping: () => receiptsStopping,
    receivedBy: INSTANCE_NAME,
    // Inbound messages on transceiver binds: STOP/START change the account's list and keywords
    // are auto-replied to, as on dlr-ingest.
    onInbound: keywordsOnInbound({
      maxSegments: config.MAX_SEGMENTS,
      creditsPerSegment: config.CREDITS_PER_SEGMENT,
    }),
  });
  const carriers = new CarrierPool(database.prisma, logger, {
    responseTimeoutMs: config.SUBMIT_TIMEOUT_MS,
    enquireLinkIntervalMs: config.ENQUIRE_LINK_INTERVAL_MS,
    box,
    onDeliverSm: (carrierId, pdu) => receiptsInFlight.track(() => handleDeliverSm(carrierId, pdu)),
    onDeliverSmRefused: (carrierId) =>
      metrics.receipts.deliverSm.inc({ kind: "refused_transmitter_bind", carrier_id: carrierId }),
  });
  await carriers.refresh();
  const refreshLoop = startLoop({
    name: "carrier refresh",
    intervalMs: config.CARRIER_REFRESH_MS,
    firstTickAfterMs: config.CARRIER_REFRESH_MS,
    logger,
    tick: () => carriers.refresh(),
  });
  const queueContext = { connection: queueConnection, prefix: config.REDIS_PREFIX };
  const producer = createDispatchProducer(queueContext, { claimTtlMs: config.DISPATCH_CLAIM_TTL_MS });
  const breaker = {
    windowMs: config.CARRIER_BREAKER_WINDOW_MS,
    minSubmits: config.CARRIER_BREAKER_MIN_SUBMITS,
    failurePercent: config.CARRIER_BREAKER_FAILURE_PERCENT,
    openMs: config.CARRIER_BREAKER_OPEN_MS,
    probes: config.CARRIER_BREAKER_PROBES,
  };
  const health = new CarrierHealth({
    store: new CarrierHealthStore(redis, { prefix: config.REDIS_PREFIX, windowMs: breaker.windowMs }),
    settings: breaker,
    logger,
    instance: INSTANCE_NAME,
    syncMs: config.CARRIER_HEALTH_SYNC_MS,
    backoffMs: config.THROTTLE_BACKOFF_MS,
    binds: () => carriers.status(),
    onSubmit: (carrierId, result) => metrics.countSubmit(carrierId, result),
    onTransition: (carrierId, to) => metrics.countTransition(carrierId, to),
  });
  metrics.watchHealth(health);
  await health.syncAll();
  health.start();
  const context: BatchContext = {
    pool: database.pool,
    carriers,
    carrierBudget: createCarrierBudget(redis, {
      prefix: config.REDIS_PREFIX,
      highReservePercent: config.CARRIER_HIGH_RESERVE_PERCENT,
    }),
    pacer: createPacer(redis, config.REDIS_PREFIX),
    accountRates: new AccountRates(database.pool),
    producer,
    logger,
    box,
    retryLimit: config.SUBMIT_RETRY_LIMIT,
    health,
    maxUnansweredSubmits: config.SEGMENT_MAX_UNANSWERED_SUBMITS,
    onAcceptedWithoutId: (carrierId) => metrics.countAcceptedWithoutId(carrierId),
    claimTtlMs: config.DISPATCH_CLAIM_TTL_MS,
    maxAttempts: config.DISPATCH_MAX_ATTEMPTS,
    retryBaseMs: config.DISPATCH_RETRY_BASE_MS,
    marks: new Batcher((marks) => markSubmitting(database.pool, marks, INSTANCE_NAME), SEGMENT_WRITES),
    records: new Batcher((records) => recordSubmitted(database.pool, records), SEGMENT_WRITES),
  };
  const concurrency: Record<Priority, number> = {
    high: config.DISPATCH_CONCURRENCY_HIGH,
    normal: config.DISPATCH_CONCURRENCY_NORMAL,
    bulk: config.DISPATCH_CONCURRENCY_BULK,
  };
  // One worker per class, each with slots of its own: the classes are weighted by their
  // slots, so a campaign in bulk never takes the slots an OTP needs, and bulk never starves.
  const workers = config.DISPATCH_CLASSES.map((priority) =>
    registerWorker<DispatchJob>(
      queueContext,
      DISPATCH_QUEUES[priority],
      async (job: Job<DispatchJob>) => {
        const outcome = await dispatchBatch(context, job, priority);
        metrics.countBatch(priority, outcome);
        return outcome;
      },
      {
        logger,
        metrics: metrics.queues,
        worker: {
          concurrency: concurrency[priority],
          lockDuration: config.DISPATCH_LOCK_MS,
          stalledInterval: config.DISPATCH_STALLED_CHECK_MS,
          // A job whose dispatcher died is taken over, never dropped: the dispatcher is idempotent.
          maxStalledCount: 1000,
        },
        failed: {
          message: "dispatch job failed; BullMQ retries it",
          fields: (job) => ({
            job_id: job?.id,
            messages: job?.data.messageIds.length,
            attempt: job?.attemptsMade,
          }),
        },
        // "could not renew lock" when the process is starved.
        errorMessage: "dispatch worker error",
      },
    ),
  );
  let stopping = false;
  const healthServer = await startHealthServer({
    port: config.PORT,
    readiness: { postgres: database.pool, redis },
    isShuttingDown: () => stopping,
    metrics,
  });
  logger.info("dispatcher started", {
    port: healthServer.port,
    classes: config.DISPATCH_CLASSES,
    carriers: carriers.status(),
  });
  return {
    port: healthServer.port,
    carriers,
    health,
    stop: orderedStop({
      timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      logger,
      steps: [
        { name: "readiness", run: () => (stopping = true) },
        {
          name: "carrier refresh",
          run: ({ left }) => settlesWithin(refreshLoop.stop(), atLeastASecond(left)),
        },
        {
          // Jobs still running at the bound are handed back: another dispatcher takes them over
          // once their lock lapses (a segment left 'submitting' may then go to the carrier again).
          name: "workers",
          run: async () => {
            const closed = await Promise.all(
              workers.map((worker) => worker.close(config.SHUTDOWN_TIMEOUT_MS)),
            );
            if (closed.includes(false))
              logger.warn("dispatches still running at the shutdown bound; handed back");
          },
        },
        {
          // Receipts being stored commit and are acknowledged; later ones are handed back to the carrier.
          name: "receipts",
          run: ({ left }) => {
            receiptsStopping = true;
            return receiptsInFlight.idle(atLeastASecond(left));
          },
        },
        {
          // Unbinding waits for the submits on the wire; a carrier that does not answer must not hold the exit.
          name: "carrier binds",
          run: ({ left }) => settlesWithin(carriers.close(), atLeastASecond(left)),
        },
        { name: "health port", run: () => healthServer.close() },
        { name: "carrier health", run: () => health.stop() },
        { name: "producer", run: () => producer.close().catch(() => undefined) },
        {
          // BullMQ leaves a caller-supplied ioredis connection open on close(); we close ours.
          name: "redis",
          run: () => {
            queueConnection.disconnect();
            redis.disconnect();
          },
        },
        {
          // pool.end() waits for checked-out clients, which a handed-back job may still hold.
          name: "database",
          run: ({ left }) => settlesWithin(database.close(), atLeastASecond(left)),
        },
      ],
    }),
  };
}

/**
 * The steps after the workers get at least a second even once the bound has passed (the
 * workers alone may use all of it); runService's backstop, 5 s later, still ends the process.
 */
function atLeastASecond(left: () => number): number {
  return Math.max(1000, left());
}
