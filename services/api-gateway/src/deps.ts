import { API_KEYS_CHANGED_CHANNEL, createApiKeyDirectory } from "@sms/auth";
import { createDatabase, listenForNotifications } from "@sms/db";
import type { Logger } from "@sms/logger";
import { createAcceptance } from "@sms/message-acceptance";
import { GatewayMetrics } from "./metrics";
import { createPumpingGuard, createSendLimiter, OtpService } from "@sms/otp";
import { createSecretBox } from "@sms/secret-box";
import { createDispatchProducer } from "@sms/queues";
import { createRateLimiter } from "@sms/rate-limit";
import { createRedis } from "@sms/redis";
import type { GatewayDeps } from "./app";
import type { GatewayConfig } from "./config";

export interface RunningDeps extends GatewayDeps {
  /** /readyz answers 503 from now on (SIGTERM's first step, before the port closes). */
  beginShutdown(): void;
  /** Stops the relay, flushes hand-offs, then closes queues, Redis and the database, in that order. */
  close(): Promise<void>;
  startBackground(): void;
}

/** Connects everything the gateway needs. */
export function createGatewayDeps(config: GatewayConfig, logger: Logger): RunningDeps {
  const database = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: "api-gateway",
  });
  const redis = createRedis(config.REDIS_URL, "command");
  const queueConnection = createRedis(config.REDIS_URL, "queue");
  const producer = createDispatchProducer({ connection: queueConnection, prefix: config.REDIS_PREFIX });
  const limiter = createRateLimiter(redis, { prefix: config.REDIS_PREFIX });
  const acceptance = createAcceptance({
    pool: database.pool,
    producer,
    logger,
    options: {
      maxSegments: config.MAX_SEGMENTS,
      creditsPerSegment: config.CREDITS_PER_SEGMENT,
      defaultValiditySeconds: config.MESSAGE_VALIDITY_DEFAULT_SECONDS,
      outbox: {
        staleAfterMs: config.OUTBOX_STALE_AFTER_MS,
        isQueueReachable: () =>
          redis.ping().then(
            () => true,
            () => false,
          ),
      },
    },
  });
  const directory = createApiKeyDirectory(database.pool, { cacheSeconds: config.AUTH_CACHE_SECONDS });
  // Revocations (and suspensions) reach every replica at once, not after AUTH_CACHE_SECONDS;
  // while the listener is down the cache lifetime still bounds them.
  let keyChanges: { stop(): Promise<void> } | null = null;
  let shuttingDown = false;
  const metrics = new GatewayMetrics();
  return {
    config,
    logger,
    metrics,
    prisma: database.prisma,
    pool: database.pool,
    directory,
    limiter,
    acceptor: acceptance.acceptor,
    otp: new OtpService(
      {
        pool: database.pool,
        acceptor: acceptance.acceptor,
        limiter: createSendLimiter(redis, {
          prefix: config.REDIS_PREFIX,
          limit: config.OTP_SENDS_PER_WINDOW,
          windowSeconds: config.OTP_SEND_WINDOW_SECONDS,
        }),
        box: createSecretBox(config.SECRET_ENCRYPTION_KEY),
        pumping: createPumpingGuard(redis, {
          prefix: config.REDIS_PREFIX,
          minSends: config.OTP_PUMPING_MIN_SENDS,
          minVerifiedPercent: config.OTP_PUMPING_MIN_VERIFIED_PERCENT,
          prefixDigits: config.OTP_PUMPING_PREFIX_DIGITS,
        }),
        onPumpingRefused: ({ accountId, destinationPrefix, country }) => {
          metrics.otpPumpingRefusals.inc({ country: country ?? "none" });
          logger.warn("OTPs to a destination range paused: many sent, few verified (SMS pumping?)", {
            accountId,
            destinationPrefix,
          });
        },
      },
      {
        hmacSecret: config.OTP_HMAC_SECRET,
        maxAttempts: config.OTP_MAX_ATTEMPTS,
        senderId: config.OTP_SENDER_ID,
      },
    ),
    readiness: { postgres: database.pool, redis },
    isShuttingDown: () => shuttingDown,
    startBackground() {
      acceptance.outbox.startRelay(config.OUTBOX_RELAY_INTERVAL_MS);
      keyChanges = listenForNotifications(
        config.DATABASE_URL,
        { [API_KEYS_CHANGED_CHANNEL]: (hashOrAccountId) => directory.forget(hashOrAccountId) },
        {
          applicationName: "api-gateway-key-changes",
          onListening: () => directory.clear(),
          onLost: (reason) => logger.warn("API key change notifications lost; listening again", { reason }),
        },
      );
    },
    beginShutdown: () => void (shuttingDown = true),
    async close() {
      shuttingDown = true;
      await keyChanges?.stop();
      await acceptance.close();
      await producer.close().catch(() => undefined);
      // BullMQ leaves a caller-supplied ioredis connection open on close(); we close ours.
      queueConnection.disconnect();
      redis.disconnect();
      await database.close();
    },
  };
}
