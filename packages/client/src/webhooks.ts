import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { components } from "./generated/schema";

export type MessageStatusEvent = components["schemas"]["MessageStatusEvent"];
export type MessageReceivedEvent = components["schemas"]["MessageReceivedEvent"];
export type WebhookTestEvent = components["schemas"]["WebhookTestEvent"];
/** Every body the platform POSTs to a webhook endpoint; narrow on `event`. */
export type WebhookEvent = MessageStatusEvent | MessageReceivedEvent | WebhookTestEvent;

export { WebhookVerificationError };

/**
 * Checks a delivery's Standard Webhooks signature and timestamp (5 minutes either way) with the
 * official `standardwebhooks` library and returns the typed event. Pass the raw body, exactly
 * as received: a re-serialised JSON object does not verify. Throws WebhookVerificationError.
 */
export function verifyWebhook(
  secret: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  rawBody: string | Buffer,
): WebhookEvent {
  const lowerCased: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) lowerCased[name.toLowerCase()] = Array.isArray(value) ? value.join(" ") : value;
  return new Webhook(secret).verify(rawBody, lowerCased) as WebhookEvent;
}
