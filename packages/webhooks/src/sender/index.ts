export {
  createWebhookSender,
  RESPONSE_BODY_LIMIT,
  type AttemptOutcome,
  type AttemptResult,
  type WebhookRequest,
  type WebhookSender,
  type WebhookSenderOptions,
} from "./sender";
export { parseRetryAfter } from "./retry-after";
