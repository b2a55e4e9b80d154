import { runService } from "@sms/service-runtime";
import { loadWebhookDeliveryConfig } from "./config";
import { startWebhookDelivery } from "./service";

runService({
  name: "webhook-delivery",
  loadConfig: () => loadWebhookDeliveryConfig(),
  start: startWebhookDelivery,
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 5000,
});
