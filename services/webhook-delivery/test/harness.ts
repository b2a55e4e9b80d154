import crypto from "node:crypto";
import { createDatabase, type Database } from "@sms/db";
import { createLogger } from "@sms/logger";
import { applyTransition } from "@sms/message-state";
import { insertAccount, insertMessage } from "@sms/message-state/test/fixtures";
import { relayOutbox, type RelayProducers } from "@sms/outbox-relay";
import { createSmppReceiptProducer, createWebhookDeliverProducer } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { WebhookEndpoints } from "@sms/webhooks";
import { loadWebhookDeliveryConfig } from "../src/config";
import { startWebhookDelivery, type RunningWebhookDelivery } from "../src/service";

/** A database, Redis prefix, relay producers and endpoint settings; services started on demand. */
export interface WebhookWorld {
  world: TestWorld;
  db: Database;
  endpoints: WebhookEndpoints;
  /** Environment for a webhook-delivery process: the world's plus the test settings. */
  env: Record<string, string>;
  /** An account whose endpoint is `url`; returns the account id and its signing secret. */
  account(url: string): Promise<{ accountId: string; secret: string }>;
  /**
   * `count` messages of the account (of `priority`, default normal) that fail before a carrier:
   * one message.failed event each, relayed unless `relay` is false (default true).
   */
  emitEvents(
    accountId: string,
    count: number,
    options?: { priority?: "high" | "normal" | "bulk"; relay?: boolean },
  ): Promise<string[]>;
  /** Publishes pending outbox events (what the scheduler's relay does). */
  relay(): Promise<void>;
  start(env?: Record<string, string>): Promise<RunningWebhookDelivery>;
  deliveries(accountId: string): Promise<Array<{ event_id: string; status: string; attempts: number }>>;
  /**
   * Each delivery's recorded successes: the one its row holds (success_on_row) plus its 2xx
   * rows in webhook_attempts (where a second success of a succeeded delivery goes).
   */
  successesPerEvent(accountId: string): Promise<Array<{ event_id: string; successes: number }>>;
  /** How many attempts the account's deliveries recorded: failure rows and successes alike. */
  attemptCount(accountId: string): Promise<number>;
  close(): Promise<void>;
}

/** Short schedule so retries happen within a test; loopback and http allowed (local use). */
export const TEST_ENV = {
  WEBHOOK_RETRY_SCHEDULE_MS: "100,200,300,400,500,600,700,800,900",
  WEBHOOK_ALLOW_LOOPBACK: "true",
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ENDPOINT_CACHE_MS: "0",
  PORT: "0",
  LOG_LEVEL: "error",
};

export async function startWebhookWorld(): Promise<WebhookWorld> {
  const world = await createTestWorld();
  // The fixtures write events 50 at a time through 8 connections: on a loaded machine a write can
  // wait for a connection longer than the 2 s a service's pool allows (one crash test failed so).
  const db = createDatabase(world.databaseUrl, { poolSize: 8, connectTimeoutMs: 30_000 });
  const key = crypto.randomBytes(32).toString("base64");
  const env = { ...world.env, ...TEST_ENV, SECRET_ENCRYPTION_KEY: key };
  const endpoints = new WebhookEndpoints(db.prisma, createSecretBox(key), {
    allowLoopback: true,
    allowHttp: true,
  });
  const connection: Redis = createRedis(world.redisUrl, "queue");
  const context = { connection, prefix: world.redisPrefix };
  const producers: RelayProducers = {
    webhooks: createWebhookDeliverProducer(context),
    smppReceipts: createSmppReceiptProducer(context),
  };
  const running: RunningWebhookDelivery[] = [];
  const relay = async () => {
    while ((await relayOutbox(db.pool, producers, { limit: 1000 })).events > 0);
  };
  return {
    world,
    db,
    endpoints,
    env,
    async account(url) {
      const accountId = await insertAccount(db.pool, 1_000_000);
      const { secret } = await endpoints.register(accountId, url);
      return { accountId, secret: secret! };
    },
    async emitEvents(accountId, count, { priority = "normal", relay: relayed = true } = {}) {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 50) {
        const chunk = await Promise.all(
          Array.from({ length: Math.min(50, count - i) }, async () => {
            const id = await insertMessage(db.pool, { accountId });
            if (priority !== "normal")
              await db.pool.query(`UPDATE messages SET priority = $2::"MessagePriority" WHERE id = $1`, [
                id,
                priority,
              ]);
            await applyTransition(db.pool, {
              messageId: id,
              to: "failed",
              at: new Date(),
              errorCode: "NO_ROUTE",
            });
            return id;
          }),
        );
        ids.push(...chunk);
      }
      if (relayed) await relay();
      return ids;
    },
    relay,
    async start(extra = {}) {
      const config = loadWebhookDeliveryConfig({ ...env, ...extra });
      const service = await startWebhookDelivery(config, createLogger("webhook-test", "error"));
      running.push(service);
      return service;
    },
    async deliveries(accountId) {
      const { rows } = await db.pool.query(
        "SELECT event_id, status::text AS status, attempts FROM webhook_deliveries WHERE account_id = $1 ORDER BY created_at",
        [accountId],
      );
      return rows;
    },
    async successesPerEvent(accountId) {
      const { rows } = await db.pool.query<{ event_id: string; successes: number }>(
        `SELECT d.event_id,
                coalesce(d.success_on_row, false)::int
                  + (SELECT count(*) FROM webhook_attempts AS a
                     WHERE a.event_id = d.event_id AND a.status_code BETWEEN 200 AND 299)::int AS successes
         FROM webhook_deliveries AS d WHERE d.account_id = $1`,
        [accountId],
      );
      return rows;
    },
    async attemptCount(accountId) {
      const { rows } = await db.pool.query<{ attempts: number }>(
        `SELECT (SELECT count(*) FROM webhook_attempts WHERE account_id = $1)::int
              + (SELECT count(*) FROM webhook_deliveries WHERE account_id = $1 AND success_on_row)::int AS attempts`,
        [accountId],
      );
      return rows[0]!.attempts;
    },
    async close() {
      await Promise.all(running.map((service) => service.stop()));
      await producers.webhooks.close();
      await producers.smppReceipts.close();
      connection.disconnect();
      await db.close();
      await world.destroy();
    },
  };
}
