/** An outbox_events row as the relay reads it. */
export interface OutboxRow {
  id: string;
  account_id: string;
  message_id: string;
  type: string;
  sequence: number;
  payload: Record<string, unknown>;
  created_at: Date;
}

/** The `data` keys of docs/webhooks.md#payload, in the order they are sent. */
const DATA_KEYS = [
  "to",
  "status",
  "sender_id",
  "segments",
  "error_code",
  "error_message",
  "delivered_at",
  "sent_at",
  "sequence",
  "previous_status",
  "batch_id",
  "otp_id",
  "smpp_part_ids",
  "client_ref",
] as const;

/** The `data` keys of a message.received event (an inbound message), in the order they are sent. */
const RECEIVED_DATA_KEYS = ["from", "to", "text", "encoding", "segments", "received_at"] as const;

export type WebhookData = Record<string, unknown>;

function dataKeysOf(eventType: string): readonly string[] {
  return eventType === "message.received" ? RECEIVED_DATA_KEYS : DATA_KEYS;
}

export interface WebhookEvent {
  event: string;
  message_id: string;
  /** When the status changed. */
  timestamp: string;
  data: WebhookData;
}

/**
 * The webhook event of an outbox row (docs/webhooks.md#payload): every key present (null when not
 * known), `sequence` from the row, and nothing else, so the text of a message sent can
 * never leak in even if a writer put it in the payload. A message.received event has its own
 * keys, the inbound text among them (docs/webhooks.md).
 */
export function toWebhookEvent(row: OutboxRow): WebhookEvent {
  const data: WebhookData = {};
  for (const key of dataKeysOf(row.type)) data[key] = row.payload[key] ?? null;
  if (row.type !== "message.received") data.sequence = row.sequence;
  return {
    event: row.type,
    message_id: row.message_id,
    timestamp: row.created_at.toISOString(),
    data,
  };
}

/**
 * The exact text POSTed. Keys are written in the documented order whatever order the
 * stored JSON (jsonb sorts keys) comes back in, so every attempt sends the same bytes.
 */
export function renderWebhookBody(event: WebhookEvent): string {
  const data: Record<string, unknown> = {};
  for (const key of dataKeysOf(event.event)) data[key] = event.data[key] ?? null;
  return JSON.stringify({
    event: event.event,
    message_id: event.message_id,
    timestamp: event.timestamp,
    data,
  });
}
