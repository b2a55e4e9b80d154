/**
 * The data of a message's status event (the webhook's `data`, docs/webhooks.md#payload).
 *
 * A status event stores none (outbox_events.payload is null): the SQL function
 * message_event_data(message_id, sequence), defined in migration
 * 20261202090000_event_data_from_history, builds it from the message's fixed columns and its
 * history up to the event, so each fact is stored once (docs/decisions.md#event-data). Events
 * that carry a payload (message.received, and status events written before the function) are
 * read as stored. A key is present only when it has a value: the webhook sends the others as
 * null (toWebhookEvent). Never the message text.
 */

/** The data of the outbox_events row `alias`, stored or built. */
export function eventDataSql(alias: string): string {
  return `COALESCE(${alias}.payload, message_event_data(${alias}.message_id, ${alias}.sequence))`;
}
