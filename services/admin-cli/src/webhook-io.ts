import type { Database } from "@sms/db";
import { createWebhookDeliverProducer, type WebhookDeliverProducer } from "@sms/queues";
import { createRedis } from "@sms/redis";
import { createSecretBox } from "@sms/secret-box";
import type { UrlPolicy } from "@sms/ssrf-guard";
import { WebhookEndpoints } from "@sms/webhooks";
import { createWebhookSender, type WebhookSender } from "@sms/webhooks";
import { UsageError } from "./errors";

/** What the webhook commands need, made only when a webhook command runs. */
export interface WebhookIo {
  endpoints(): WebhookEndpoints;
  sender(): WebhookSender;
  producer(): { producer: WebhookDeliverProducer; close(): Promise<void> };
  /** WEBHOOK_REPLAY_MAX_PER_REQUEST: failed deliveries one `webhook replay` queues again. */
  replayMaxPerRequest: number;
}

export function createWebhookIo(
  db: Database,
  settings: {
    secretKey: string | undefined;
    policy: UrlPolicy;
    redisUrl: string;
    redisPrefix: string;
    replayMaxPerRequest: number;
  },
): WebhookIo {
  return {
    replayMaxPerRequest: settings.replayMaxPerRequest,
    endpoints() {
      if (!settings.secretKey)
        throw new UsageError(
          "SECRET_ENCRYPTION_KEY is not set: it seals webhook secrets (use the services' value)",
        );
      return new WebhookEndpoints(db.prisma, createSecretBox(settings.secretKey), settings.policy);
    },
    sender: () =>
      createWebhookSender({
        timeoutMs: 15_000,
        allowLoopback: settings.policy.allowLoopback ?? false,
        allowHttp: settings.policy.allowHttp ?? false,
      }),
    producer() {
      const connection = createRedis(settings.redisUrl, "queue");
      const producer = createWebhookDeliverProducer({ connection, prefix: settings.redisPrefix });
      return {
        producer,
        close: async () => {
          await producer.close();
          connection.disconnect();
        },
      };
    },
  };
}
