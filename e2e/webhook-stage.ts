import type { DispatchWorld } from "@sms/dispatcher/test/harness";
import type { Logger } from "@sms/logger";
import { startOutboxRelay } from "@sms/outbox-relay";
import { createSmppReceiptProducer, createWebhookDeliverProducer } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { loadWebhookDeliveryConfig, startWebhookDelivery } from "@sms/webhook-delivery";
import { TEST_ENV } from "@sms/webhook-delivery/test/harness";

/**
 * The webhook half of the pipeline, as the scheduler's relay and webhook-delivery run it: events
 * relayed to webhook.deliver jobs, sent to the account's endpoint. Resolves with what stops it all.
 */
export async function startWebhookStage(d: DispatchWorld, logger: Logger): Promise<() => Promise<void>> {
  const connection = createRedis(d.world.redisUrl, "queue");
  const context = { connection, prefix: d.world.redisPrefix };
  const producers = {
    webhooks: createWebhookDeliverProducer(context),
    smppReceipts: createSmppReceiptProducer(context),
  };
  const relay = startOutboxRelay({ pool: d.db.pool, producers, logger, batchSize: 500, idleMs: 20 });
  const hooks = await startWebhookDelivery(
    loadWebhookDeliveryConfig({
      ...d.world.env,
      ...TEST_ENV,
      SECRET_ENCRYPTION_KEY: d.world.env.SECRET_ENCRYPTION_KEY!,
    }),
    logger,
  );
  return async () => {
    await hooks.stop();
    await relay.stop();
    await producers.webhooks.close();
    await producers.smppReceipts.close();
    connection.disconnect();
  };
}
