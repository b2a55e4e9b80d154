export {
  toWebhookEvent,
  renderWebhookBody,
  type OutboxRow,
  type WebhookEvent,
  type WebhookData,
} from "./event";
export { buildTestEvent, buildTestDelivery } from "./test-event";
