-- A message's status event stores no payload (docs/decisions.md#event-data): its data is built
-- when it is read, from what is already stored once, the message's fixed columns and its history
-- up to the event's sequence. It is what the payload written with the change held: the
-- message's columns then were the COALESCE of its changes so far (apply-transitions.sql.ts), and
-- history rows are never changed. Events written before keep their payload and are read as they
-- are; message.received events keep theirs (an inbound message has no history).
--
-- to, sender_id, segments, batch_id, otp_id, client_ref: the message's, which never change.
-- status, previous_status: the event's history row.
-- sent_at: when it first became sent or delivered; delivered_at: its last delivery;
-- error_code and error_message: the latest change that gave one (each on its own).
-- smpp_part_ids: the ids an SMPP customer was given for its parts, from the second event on
-- (the parts are linked a moment after the acceptance, so the queued event never had them).
CREATE FUNCTION message_event_data(p_message_id text, p_sequence integer) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'to', m.to_number, 'status', e.status, 'previous_status', e.previous_status, 'sender_id', m.sender_id,
    'segments', m.segment_count, 'batch_id', m.batch_id, 'otp_id', m.otp_id, 'client_ref', m.client_ref,
    'error_code', h.error_code, 'error_message', h.error_message,
    'sent_at', to_char(h.sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'delivered_at', to_char(h.delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'smpp_part_ids', CASE WHEN m.source = 'smpp' AND p_sequence > 1 THEN (
      SELECT jsonb_agg(s.id ORDER BY s.part_seq) FROM smpp_submits AS s
      WHERE s.message_id = p_message_id AND s.concat_key IS NOT NULL) END))
  FROM messages AS m
  JOIN message_events AS e ON e.message_id = p_message_id AND e.sequence = p_sequence
  CROSS JOIN LATERAL (
    SELECT (array_agg(occurred_at ORDER BY sequence) FILTER (WHERE status IN ('sent', 'delivered')))[1] AS sent_at,
           (array_agg(occurred_at ORDER BY sequence DESC) FILTER (WHERE status = 'delivered'))[1] AS delivered_at,
           (array_agg(error_code ORDER BY sequence DESC) FILTER (WHERE error_code IS NOT NULL))[1] AS error_code,
           (array_agg(error_message ORDER BY sequence DESC) FILTER (WHERE error_message IS NOT NULL))[1] AS error_message
    FROM message_events WHERE message_id = p_message_id AND sequence <= p_sequence
  ) AS h
  WHERE m.id = p_message_id
$$;

-- A metadata change: no rewrite, no scan.
ALTER TABLE outbox_events ALTER COLUMN payload DROP NOT NULL;
