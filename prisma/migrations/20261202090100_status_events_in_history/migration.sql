-- A status event is its history row (docs/decisions.md#status-events): the change writes its
-- event id on the message_events row and queues it for the relay in outbox_pending with the
-- message and sequence, and writes no outbox_events row. outbox_events keeps message.received
-- events and the status events written before this migration, which are read as they are.
-- Each ADD COLUMN is nullable without a default: a catalog change, no rewrite, no scan.
ALTER TABLE message_events ADD COLUMN event_id text;
ALTER TABLE outbox_pending ADD COLUMN message_id text, ADD COLUMN sequence integer;
ALTER TABLE webhook_deliveries ADD COLUMN sequence integer;

-- The time in an id's ULID (its first ten characters, milliseconds since 1970): an event's
-- time is its id's, so a status event stores none.
CREATE FUNCTION ulid_time(id text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_timestamp(sum((strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(right(id, 26), i, 1)) - 1)
                          * power(32::numeric, 10 - i)) / 1000)
  FROM generate_series(1, 10) AS i
$$;

-- Every event as its webhooks carry it, for support and tests: the status events of the
-- history and the rows of outbox_events.
CREATE VIEW events AS
  SELECT h.event_id AS id, m.account_id, h.message_id, 'message.' || h.status AS type, h.sequence,
         message_event_data(h.message_id, h.sequence) AS payload, ulid_time(h.event_id) AS created_at
  FROM message_events AS h JOIN messages AS m ON m.id = h.message_id
  WHERE h.event_id IS NOT NULL
  UNION ALL
  SELECT id, account_id, message_id, type, sequence, COALESCE(payload, message_event_data(message_id, sequence)),
         created_at
  FROM outbox_events;
