export {
  toWebhookEvent,
  renderWebhookBody,
  type OutboxRow,
  type WebhookEvent,
  type WebhookData,
} from "./event";
export { buildTestEvent } from "./test-event";
