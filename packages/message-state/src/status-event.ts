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

/**
 * The same data as message_event_data, as a subquery of one row (`data`) for the message and
 * sequence the caller's expressions name: for statements that build it for many events at once.
 * The function runs as a query of its own on every call (about 35 µs of PostgreSQL per event);
 * this one is planned with its caller and probes per event (about 15 µs), LIMIT 1 keeping it a
 * probe whatever the statistics say. No row when the message is gone. The property test of
 * status-event.integration.test.ts holds it to the function, event by event. `ids`, expressions of
 * the smallest and the largest message id it may be asked for (idRange), leave the other weeks
 * out of the plan: planned for each run, the claim of 100 deliveries took about 5 ms to plan with
 * no bound and 27 weeks ahead, 1.3 ms with an upper bound, and a further 0.3 ms for each week of
 * the past that an upper bound alone leaves in (docs/decisions.md#event-data).
 */
export function eventDataSubquery(
  messageId: string,
  sequence: string,
  ids?: { first: string; last: string },
): string {
  const within = (column: string) =>
    ids ? ` AND ${column} >= ${ids.first} AND ${column} <= ${ids.last}` : "";
  return `(
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'to', m.to_number, 'status', h.status, 'previous_status', h.previous_status, 'sender_id', m.sender_id,
    'segments', m.segment_count, 'batch_id', m.batch_id, 'otp_id', m.otp_id, 'client_ref', m.client_ref,
    'error_code', h.error_code, 'error_message', h.error_message,
    'sent_at', to_char(h.sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'delivered_at', to_char(h.delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'smpp_part_ids', CASE WHEN m.source = 'smpp' AND ${sequence} > 1 THEN (
      SELECT jsonb_agg(p.id ORDER BY p.part_seq) FROM smpp_submits AS p
      WHERE p.message_id = ${messageId} AND p.concat_key IS NOT NULL) END)) AS data
  FROM messages AS m
  CROSS JOIN LATERAL (
    SELECT (array_agg(status ORDER BY sequence DESC))[1] AS status,
           (array_agg(previous_status ORDER BY sequence DESC))[1] AS previous_status,
           (array_agg(occurred_at ORDER BY sequence) FILTER (WHERE status IN ('sent', 'delivered')))[1] AS sent_at,
           (array_agg(occurred_at ORDER BY sequence DESC) FILTER (WHERE status = 'delivered'))[1] AS delivered_at,
           (array_agg(error_code ORDER BY sequence DESC) FILTER (WHERE error_code IS NOT NULL))[1] AS error_code,
           (array_agg(error_message ORDER BY sequence DESC) FILTER (WHERE error_message IS NOT NULL))[1] AS error_message
    FROM message_events WHERE message_id = ${messageId}${within("message_id")} AND sequence <= ${sequence}
    HAVING count(*) FILTER (WHERE sequence = ${sequence}) = 1
  ) AS h
  WHERE m.id = ${messageId}${within("m.id")}
  LIMIT 1
)`;
}
