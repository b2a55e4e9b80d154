/**
 * The payload of a message's status event (outbox_events.payload; the webhook's `data`,
 * docs/webhooks.md#payload), defined here once. A key is stored only when it has a value:
 * the webhook sends the others as null (toWebhookEvent), so an event costs no bytes for what
 * it does not know yet. Never the message text.
 *
 * Two writers, one definition: a status change builds it in SQL from the changed row
 * (STATUS_EVENT_PAYLOAD_SQL); the acceptance, which writes a new message and its first event
 * in one statement, builds it here (acceptedEventPayload). A test holds them to one result.
 */

/**
 * The payload of a row with the `messages` columns plus `previous_status` (the
 * `upd` rows of applyTransitions). `smpp_part_ids`: the ids an SMPP customer was given for
 * the parts it submitted, in part order.
 */
export const STATUS_EVENT_PAYLOAD_SQL = `jsonb_strip_nulls(jsonb_build_object(
  'to', to_number, 'status', status, 'previous_status', previous_status, 'sender_id', sender_id,
  'segments', segment_count, 'batch_id', batch_id, 'otp_id', otp_id, 'client_ref', client_ref,
  'error_code', error_code, 'error_message', error_message,
  'sent_at', to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'delivered_at', to_char(delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'smpp_part_ids', CASE WHEN source = 'smpp' THEN (
    SELECT jsonb_agg(s.id ORDER BY s.part_seq) FROM smpp_submits s
    WHERE s.message_id = upd.id AND s.concat_key IS NOT NULL) END))`;

/** What the acceptance knows of a message it queues. */
export interface AcceptedMessage {
  to: string;
  senderId: string;
  segments: number;
  batchId: string | null;
  otpId: string | null;
  clientRef?: string | null;
}

/**
 * The `message.queued` event of a message just accepted: what STATUS_EVENT_PAYLOAD_SQL gives
 * for it (no previous status, nothing sent or failed yet). An SMPP message's part ids are
 * not known to it yet: they come with its next event.
 */
export function acceptedEventPayload(message: AcceptedMessage): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    to: message.to,
    status: "queued",
    sender_id: message.senderId,
    segments: message.segments,
    batch_id: message.batchId,
    otp_id: message.otpId,
    client_ref: message.clientRef,
  };
  for (const [key, value] of Object.entries(payload))
    if (value === null || value === undefined) delete payload[key];
  return payload;
}
