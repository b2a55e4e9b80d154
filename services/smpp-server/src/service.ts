import { createDatabase, listenForNotifications } from "@sms/db";
import type { Logger } from "@sms/logger";
import { createAcceptance } from "@sms/message-acceptance";
import { createDispatchProducer, QUEUES, SmppReceiptJob, type Job } from "@sms/queues";
import { createRateLimiter } from "@sms/rate-limit";
import { createRedis } from "@sms/redis";
import { orderedStop, registerWorker, startHealthServer, startLoop } from "@sms/service-runtime";
import { CommandStatus } from "@sms/smpp";
import { AccountDirectory } from "./accounts";
import { createBindAuthenticator } from "./bind-authenticator";
import { BindLeases } from "./bind-leases";
import { BindThrottle } from "./bind-throttle";
import { HashGate } from "./hash-gate";
import { failStaleParts } from "./concatenation.sql";
import type { SmppServerConfig } from "./config";
import { createDlrOutProcessor } from "./dlr-out.processor";
import { storeFailedPartReceipts } from "./failed-parts";
import { startListener } from "./listener";
import { ServerMetrics } from "./metrics";
import { createQueryHandler } from "./query.handler";
import { RECEIPTS_CHANNEL } from "@sms/customer-receipts";
import { BINDS_CHANGED_CHANNEL, BindRevoker } from "./bind-revocations";
import { InboundPump } from "./inbound-pump";
import { ReceiptPump } from "./receipt-pump";
import { SessionRegistry } from "./sessions";
import { createSubmitHandler } from "./submit.handler";

export interface RunningSmppServer {
  /** The plain SMPP port. */
  smppPort: number;
  /** The TLS SMPP port, when configured. */
  tlsPort: number | undefined;
  /** Port of /healthz, /readyz and /metrics. */
  port: number;
  metrics: ServerMetrics;
  registry: SessionRegistry;
  /**
   * Graceful stop (bounded by SHUTDOWN_TIMEOUT_MS): not ready, stop listening, unbind every
   * customer (in-flight submits are answered first), stop the receipt worker and sender, then
   * close the queue, Redis, the database and the HTTP port. Unsent receipts stay in smpp_receipts.
   */
  stop(): Promise<void>;
}

/** Starts the SMPP listeners, the smpp.dlr-out consumer, the receipt sender and the health port. */
export async function startSmppServer(config: SmppServerConfig, logger: Logger): Promise<RunningSmppServer> {
  const database = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: "smpp-server",
  });
  const { pool, prisma } = database;
  const redis = createRedis(config.REDIS_URL, "command");
  const queueConnection = createRedis(config.REDIS_URL, "queue");
  const queueContext = { connection: queueConnection, prefix: config.REDIS_PREFIX };
  const producer = createDispatchProducer(queueContext);
  const limiter = createRateLimiter(redis, { prefix: config.REDIS_PREFIX });
  const acceptance = createAcceptance({
    pool,
    producer,
    logger,
    options: {
      maxSegments: config.MAX_SEGMENTS,
      creditsPerSegment: config.CREDITS_PER_SEGMENT,
      defaultValiditySeconds: config.MESSAGE_VALIDITY_DEFAULT_SECONDS,
      // Fewer, larger transactions: each statement is a write syscall, and those were a third of
      // the CPU at 4,500 submits/s on one bind, while a second flush of the same account only
      // waits on its balance row.
      committer: { maxConcurrentFlushes: config.ACCEPT_CONCURRENT_FLUSHES },
      outbox: { staleAfterMs: config.OUTBOX_STALE_AFTER_MS },
    },
  });
  const registry = new SessionRegistry();
  const leases = new BindLeases(redis, config.REDIS_PREFIX, config.BIND_LEASE_MS);
  const metrics = new ServerMetrics(() => registry.size);
  const accounts = new AccountDirectory(pool, config.ACCOUNT_CACHE_SECONDS);
  const pump = new ReceiptPump(pool, registry, metrics, logger, {
    claimSize: 500,
    retryMs: config.RECEIPT_RETRY_MS,
  });
  const inbound = new InboundPump(pool, registry, logger, {
    claimSize: 500,
    retryMs: config.RECEIPT_RETRY_MS,
  });
  const receiptsFor = async (parts: Parameters<typeof storeFailedPartReceipts>[1]) => {
    for (const accountId of await storeFailedPartReceipts(pool, parts)) pump.kick(accountId);
  };
  const submit = createSubmitHandler({
    pool,
    accounts,
    acceptor: acceptance.acceptor,
    limiter,
    metrics,
    logger,
    onPartsFailed: receiptsFor,
  });
  const query = createQueryHandler(pool);
  const listener = await startListener(
    {
      host: config.HOST,
      port: config.SMPP_PORT,
      ...(config.SMPP_TLS_CERT_FILE && config.SMPP_TLS_KEY_FILE
        ? {
            tls: {
              port: config.SMPP_TLS_PORT,
              certFile: config.SMPP_TLS_CERT_FILE,
              keyFile: config.SMPP_TLS_KEY_FILE,
            },
          }
        : {}),
      systemId: config.SMPP_SYSTEM_ID,
      deliverWindow: config.SMPP_DELIVER_WINDOW,
      responseTimeoutMs: config.SMPP_RESPONSE_TIMEOUT_MS,
      inactivityTimeoutMs: config.SMPP_INACTIVITY_TIMEOUT_MS,
      maxPendingRequests: config.SMPP_MAX_PENDING_REQUESTS,
      bindTimeoutMs: config.SMPP_BIND_TIMEOUT_MS,
      maxBindAttempts: config.SMPP_MAX_BIND_ATTEMPTS,
      maxConnections: config.SMPP_MAX_CONNECTIONS,
      maxConnectionsPerAddress: config.SMPP_MAX_CONNECTIONS_PER_ADDRESS,
    },
    {
      authenticate: createBindAuthenticator({
        prisma,
        accounts,
        registry,
        leases,
        logger,
        throttle: new BindThrottle(redis, config.REDIS_PREFIX, {
          failureDelayMs: config.BIND_FAILURE_DELAY_MS,
          maxDelayMs: config.BIND_FAILURE_MAX_DELAY_MS,
          addressFreeFailures: config.BIND_ADDRESS_FREE_FAILURES,
          windowMs: config.BIND_FAILURE_WINDOW_MS,
        }),
        hashGate: new HashGate(config.BIND_HASH_CONCURRENCY),
      }),
      onRequest: async (pdu, accountId) => {
        if (pdu.command === "submit_sm") return submit(pdu, accountId);
        if (pdu.command === "query_sm") return query(pdu, accountId);
        // submit_multi, data_sm, cancel_sm, replace_sm: not offered (README).
        return { status: CommandStatus.ESME_RINVCMDID };
      },
      onReceiverBound: (accountId) => {
        pump.kick(accountId);
        inbound.kick(accountId);
      },
    },
    registry,
    metrics,
    logger,
  );
  // Receipts stored by the outbox relay (or any replica) wake this replica's sender at once.
  // Credentials reset or removed, an account suspended, a bind limit lowered: the triggers' NOTIFY
  // reaches every replica, and each closes its binds that no longer hold.
  const revoker = new BindRevoker(pool, registry, leases, accounts, logger);
  const reviewFailed = (error: unknown) => logger.warn("bind review failed", { error: String(error) });
  // Each payload is an account id. While the connection is lost, the receipt sweep and the
  // periodic bind review still find everything, later.
  const notifications = listenForNotifications(
    config.DATABASE_URL,
    {
      // Receipts and inbound messages share the channel: an account id wakes both.
      [RECEIPTS_CHANNEL]: (accountId) => {
        pump.kick(accountId);
        inbound.kick(accountId);
      },
      [BINDS_CHANGED_CHANNEL]: (accountId) => void revoker.review([accountId]).catch(reviewFailed),
    },
    {
      applicationName: "smpp-server-receipts",
      onLost: (reason) =>
        logger.warn("notifications lost; listening again shortly (the sweeps cover the gap)", { reason }),
    },
  );
  const reviewLoop = startLoop({
    name: "bind review",
    intervalMs: config.BIND_REVIEW_INTERVAL_MS,
    firstTickAfterMs: config.BIND_REVIEW_INTERVAL_MS,
    logger,
    tick: () => revoker.reviewAll(),
  });
  const processReceiptJob = createDlrOutProcessor(pool, (accountIds) =>
    accountIds.forEach((id) => pump.kick(id)),
  );
  const { worker } = registerWorker<SmppReceiptJob>(
    queueContext,
    QUEUES.smppDlrOut,
    async (job: Job<SmppReceiptJob>) =>
      processReceiptJob(SmppReceiptJob.parse(job.data), job.attemptsMade + 1 >= (job.opts.attempts ?? 1)),
    {
      logger,
      metrics: metrics.queues,
      worker: { concurrency: config.DLR_OUT_CONCURRENCY },
      failed: {
        message: "smpp.dlr-out job failed; BullMQ retries it while it has attempts",
        fields: (job) => ({ message_id: job?.data.messageId }),
      },
    },
  );
  // Two loops on one interval: the pumps' sweep is instant and must not wait for a slow
  // concatenation sweep.
  const pumpSweepLoop = startLoop({
    name: "receipt sweep",
    intervalMs: config.RECEIPT_SWEEP_MS,
    firstTickAfterMs: config.RECEIPT_SWEEP_MS,
    logger,
    tick: async () => {
      pump.sweep();
      inbound.sweep();
    },
  });
  const concatenationSweepLoop = startLoop({
    name: "concatenation sweep",
    intervalMs: config.RECEIPT_SWEEP_MS,
    firstTickAfterMs: config.RECEIPT_SWEEP_MS,
    logger,
    tick: async () => {
      const parts = await failStaleParts(pool, config.CONCAT_TIMEOUT_MS);
      if (parts.length) await receiptsFor(parts);
    },
  });
  acceptance.outbox.startRelay(config.OUTBOX_STALE_AFTER_MS);

  let shuttingDown = false;
  const http = await startHealthServer({
    port: config.PORT,
    host: config.HOST,
    readiness: { postgres: pool, redis },
    isShuttingDown: () => shuttingDown,
    metrics,
  });
  logger.info("smpp-server started", {
    smpp_port: listener.port,
    tls_port: listener.tlsPort,
    port: http.port,
  });

  const loops = [pumpSweepLoop, concatenationSweepLoop, reviewLoop];
  const stop = orderedStop({
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    steps: [
      { name: "readiness", run: () => (shuttingDown = true) },
      { name: "loops", run: ({ within }) => within(Promise.all(loops.map((loop) => loop.stop()))) },
      { name: "listeners", run: ({ within }) => within(listener.close()) },
      { name: "bind leases", run: () => leases.stop() },
      {
        name: "receipts",
        run: ({ within }) =>
          within(Promise.all([worker.close(), pump.stop(), inbound.stop(), notifications.stop()])),
      },
      { name: "acceptance", run: ({ within }) => within(acceptance.close()) },
      { name: "producer", run: ({ within }) => within(producer.close()) },
      {
        // BullMQ leaves a caller-supplied ioredis connection open on close(); we close ours.
        name: "redis",
        run: () => {
          queueConnection.disconnect();
          redis.disconnect();
        },
      },
      { name: "database", run: ({ within }) => within(database.close()) },
      { name: "health port", run: () => http.close() },
      { name: "log", run: () => logger.info("smpp-server stopped") },
    ],
  });
  return {
    smppPort: listener.port,
    tlsPort: listener.tlsPort,
    port: http.port,
    metrics,
    registry,
    stop,
  };
}
