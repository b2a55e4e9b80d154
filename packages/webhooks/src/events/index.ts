export {
  toWebhookEvent,
  renderWebhookBody,
  type OutboxRow,
  type WebhookEvent,
  type WebhookData,
} from "./event";
export { buildTestEvent, buildTestDelivery } from "./test-event";
export {
  WEBHOOK_EVENT_TYPES,
  EventTypesError,
  isSubscribed,
  isWebhookEventType,
  parseEventSubscription,
  parseEventTypes,
  resolveEventTypes,
  type EventSubscription,
  type WebhookEventType,
} from "./event-types";
