export { generateSecret, decodeSecret, InvalidWebhookSecretError, SECRET_PREFIX } from "./secret";
export { signWebhook, type SignWebhookInput, type WebhookHeaders } from "./sign-webhook";
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookInput,
  type WebhookVerificationReason,
} from "./verify-webhook";
