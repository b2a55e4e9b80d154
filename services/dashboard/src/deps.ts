import type { MetricsRegistry } from "@sms/metrics";
import type { Database } from "@sms/db";
import type { Logger } from "@sms/logger";
import type { WebhookDeliverProducer } from "@sms/queues";
import type { Redis } from "@sms/redis";
import type { WebhookEndpoints } from "@sms/webhooks";
import type { WebhookSender } from "@sms/webhooks";
import type { DashboardConfig } from "./config";
import type { SessionStore } from "./security/sessions";

/** Everything the pages use; built once in service.ts, passed to the routes. */
export interface DashboardDeps {
  config: DashboardConfig;
  logger: Logger;
  db: Database;
  redis: Redis;
  sessions: SessionStore;
  endpoints: WebhookEndpoints;
  sender: WebhookSender;
  webhookProducer: WebhookDeliverProducer;
  isShuttingDown(): boolean;
  /** Served on the internal health port; the app records its request latencies in it. */
  metrics: MetricsRegistry;
}
