export {
  WebhookEndpoints,
  WebhookEndpointError,
  loadDeliveryTarget,
  ROTATION_OVERLAP_MS,
  type DeliveryTarget,
  type DisableReason,
  type EndpointView,
} from "./endpoints";
export { validateWebhookUrl, MAX_URL_LENGTH } from "./validate-url";
export { replayFailedDeliveries, type ReplayFilter, type ReplayResult } from "./replay";
export { deliveryAttempts, successOnDelivery, SUCCESS_COLUMNS, type RecordedAttempt } from "./attempts";
