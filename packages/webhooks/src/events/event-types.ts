/**
 * The event types an endpoint can subscribe to (docs/decisions.md#webhook-event-types).
 * `message.received` is an inbound message (docs/messages.md#inbound). `webhook.test` is not here: a test is
 * always sent.
 */
export const WEBHOOK_EVENT_TYPES = [
  "message.queued",
  "message.sent",
  "message.delivered",
  "message.failed",
  "message.received",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * An endpoint's subscription as stored in webhook_endpoints.event_types: null is every
 * `message.*` event (the default, and what an endpoint gets for a kind added later).
 */
export type EventSubscription = readonly WebhookEventType[] | null;

/** Why a list of event types was refused; the message names the bad value and the allowed ones. */
export class EventTypesError extends Error {
  override readonly name = "EventTypesError";
}

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Checks a chosen list: known types only, at least one (an endpoint that wants nothing
 * is disabled or removed instead), duplicates dropped, in the documented order.
 */
export function parseEventTypes(values: readonly string[]): WebhookEventType[] {
  const types = values.map((value) => value.trim()).filter((value) => value !== "");
  if (types.length === 0) {
    throw new EventTypesError(
      `choose at least one event type (${WEBHOOK_EVENT_TYPES.join(", ")}) or all of them; ` +
        "to receive nothing, disable the endpoint",
    );
  }
  const unknown = types.filter((value) => !isWebhookEventType(value));
  if (unknown.length > 0) {
    throw new EventTypesError(
      `unknown event type ${unknown.map((value) => JSON.stringify(value)).join(", ")}; ` +
        `allowed: ${WEBHOOK_EVENT_TYPES.join(", ")}`,
    );
  }
  return WEBHOOK_EVENT_TYPES.filter((type) => types.includes(type));
}

/**
 * Reads `all` or a comma-separated list (the admin CLI's and a form's spelling) into a
 * subscription: null for all.
 */
export function parseEventSubscription(text: string): EventSubscription {
  if (text.trim().toLowerCase() === "all") return null;
  return parseEventTypes(text.split(","));
}

/** Whether an endpoint with this subscription gets an event of this type. */
export function isSubscribed(subscription: readonly string[] | null, eventType: string): boolean {
  return subscription === null || subscription.includes(eventType);
}

/** The types an endpoint receives, spelled out: the whole list for null. */
export function resolveEventTypes(subscription: readonly string[] | null): string[] {
  return subscription === null ? [...WEBHOOK_EVENT_TYPES] : [...subscription];
}
