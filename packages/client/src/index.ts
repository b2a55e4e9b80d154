export { createSmsClient, type SmsClient, type SmsClientOptions, type PostOptions } from "./client";
export type { ListInboundQuery, ListMessagesQuery, Message } from "./client";
export { SmsApiError, type ErrorBody } from "./errors";
export type { RetryOptions } from "./retrying-fetch";
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type MessageStatusEvent,
  type MessageReceivedEvent,
  type WebhookTestEvent,
} from "./webhooks";
export type { components, operations, paths, webhooks } from "./generated/schema";
