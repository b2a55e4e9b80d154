-- Step 3 of 3 (docs/decisions.md#partitions): one short transaction, no scan. Each table is
-- renamed <table>_legacy and attached, as the partition of every id below the bound, to a new
-- table of the same name partitioned by range of its event id. Its indexes are adopted as the
-- partitions of the new table's (same columns and predicates). Day partitions from the bound on
-- are created ahead (a week; the scheduler's retention loop keeps a week ahead after that), and
-- a default partition takes any id no day partition covers, so an insert never fails.
-- The trigger that queues every new event for the relay moves to the new outbox_events: it
-- sees the rows inserted into any partition.
-- The smallest event id made at a time: 'evt_' and the ULID's ten time characters (Crockford base32 of the ms).
CREATE OR REPLACE FUNCTION pg_temp.event_id_bound(at timestamptz) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  ms bigint := (extract(epoch FROM at) * 1000)::bigint;
  ulid_time text := '';
BEGIN
  FOR i IN 1..10 LOOP
    ulid_time := substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (ms % 32)::int + 1, 1) || ulid_time;
    ms := ms / 32;
  END LOOP;
  RETURN 'evt_' || ulid_time;
END $$;

DO $$
DECLARE
  bound text;
  first_day timestamptz;
  day timestamptz;
BEGIN
  SELECT (regexp_match(pg_get_constraintdef(oid), '''([^'']+)'''))[1] INTO STRICT bound
    FROM pg_constraint
    WHERE conname = 'outbox_events_partition_bound' AND conrelid = 'outbox_events'::regclass;

  -- outbox_events
  DROP TRIGGER outbox_events_pending ON outbox_events;
  ALTER TABLE outbox_events RENAME TO outbox_events_legacy;
  ALTER TABLE outbox_events_legacy RENAME CONSTRAINT outbox_events_pkey TO outbox_events_legacy_pkey;
  ALTER INDEX outbox_events_message_id_sequence_idx RENAME TO outbox_events_legacy_message_id_sequence_idx;
  CREATE TABLE outbox_events (
    LIKE outbox_events_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS,
    CONSTRAINT outbox_events_pkey PRIMARY KEY (id)
  ) PARTITION BY RANGE (id);
  CREATE INDEX outbox_events_message_id_sequence_idx ON outbox_events (message_id, sequence);
  EXECUTE format('ALTER TABLE outbox_events ATTACH PARTITION outbox_events_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
  ALTER TABLE outbox_events_legacy DROP CONSTRAINT outbox_events_partition_bound;
  CREATE TRIGGER outbox_events_pending AFTER INSERT ON outbox_events
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION outbox_events_pending();
  CREATE TABLE outbox_events_default PARTITION OF outbox_events DEFAULT;

  -- webhook_deliveries
  ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_legacy;
  ALTER TABLE webhook_deliveries_legacy RENAME CONSTRAINT webhook_deliveries_pkey TO webhook_deliveries_legacy_pkey;
  ALTER INDEX webhook_deliveries_pending_idx RENAME TO webhook_deliveries_legacy_pending_idx;
  ALTER INDEX webhook_deliveries_failed_idx RENAME TO webhook_deliveries_legacy_failed_idx;
  ALTER INDEX webhook_deliveries_success_on_row_idx RENAME TO webhook_deliveries_legacy_success_on_row_idx;
  CREATE TABLE webhook_deliveries (
    LIKE webhook_deliveries_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS,
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (event_id)
  ) PARTITION BY RANGE (event_id);
  CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (account_id, created_at) WHERE status = 'failed';
  CREATE INDEX webhook_deliveries_success_on_row_idx ON webhook_deliveries (account_id, last_attempt_at)
    WHERE success_on_row;
  EXECUTE format(
    'ALTER TABLE webhook_deliveries ATTACH PARTITION webhook_deliveries_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
  ALTER TABLE webhook_deliveries_legacy DROP CONSTRAINT webhook_deliveries_partition_bound;
  CREATE TABLE webhook_deliveries_default PARTITION OF webhook_deliveries DEFAULT;

  -- A week of days from the bound on (the start of a UTC day), named by their day as the scheduler names them.
  SELECT to_timestamp(sum((strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', substr(bound, 4 + i, 1)) - 1)
                          * power(32::numeric, 10 - i)) / 1000)
    INTO STRICT first_day FROM generate_series(1, 10) AS i;
  day := first_day;
  WHILE day < first_day + interval '7 days' LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF outbox_events FOR VALUES FROM (%L) TO (%L)',
      'outbox_events_p' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD'),
      pg_temp.event_id_bound(day), pg_temp.event_id_bound(day + interval '1 day'));
    EXECUTE format('CREATE TABLE %I PARTITION OF webhook_deliveries FOR VALUES FROM (%L) TO (%L)',
      'webhook_deliveries_p' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD'),
      pg_temp.event_id_bound(day), pg_temp.event_id_bound(day + interval '1 day'));
    day := day + interval '1 day';
  END LOOP;
END $$;

DROP FUNCTION pg_temp.event_id_bound(timestamptz);
