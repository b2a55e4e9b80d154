import crypto from "node:crypto";
import { createDatabase, type Database } from "@sms/db";
import { createSmppReceiptProducer, createWebhookDeliverProducer } from "@sms/queues";
import { createRedis, type Redis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { WebhookEndpoints } from "@sms/webhooks";
import type { RelayProducers } from "../src/index";

/** What a relay test works with: its own database and Redis prefix, the relay's producers, endpoint settings. */
export interface RelayWorld {
  world: TestWorld;
  db: Database;
  /** The queue connection the producers use (for reading the queues). */
  connection: Redis;
  producers: RelayProducers;
  /** Loopback and http allowed: the tests' endpoints are never called. */
  endpoints: WebhookEndpoints;
  close(): Promise<void>;
}

export async function startRelayWorld(options: { poolSize: number }): Promise<RelayWorld> {
  const world = await createTestWorld();
  const db = createDatabase(world.databaseUrl, { poolSize: options.poolSize });
  const connection = createRedis(world.redisUrl, "queue");
  const context = { connection, prefix: world.redisPrefix };
  const producers: RelayProducers = {
    webhooks: createWebhookDeliverProducer(context),
    smppReceipts: createSmppReceiptProducer(context),
  };
  const endpoints = new WebhookEndpoints(
    db.prisma,
    createSecretBox(crypto.randomBytes(32).toString("base64")),
    {
      allowLoopback: true,
      allowHttp: true,
    },
  );
  return {
    world,
    db,
    connection,
    producers,
    endpoints,
    async close() {
      await producers.webhooks.close();
      await producers.smppReceipts.close();
      connection.disconnect();
      await db.close();
      await world.destroy();
    },
  };
}
