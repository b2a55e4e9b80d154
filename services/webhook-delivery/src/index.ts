// The service's entry for other workspaces (the cross-service tests in e2e/): how to start it and read its settings.
export { loadWebhookDeliveryConfig, type WebhookDeliveryConfig } from "./config";
export { startWebhookDelivery, type RunningWebhookDelivery } from "./service";
