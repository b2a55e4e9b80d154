-- Step 1 of 3 turning outbox_events and webhook_deliveries into tables partitioned by the day of
-- their event id (docs/decisions.md#partitions). The key stays: an event id is evt_<ULID>, whose
-- first ten ULID characters are its creation time, so a day's ids form one key range and the
-- (id) primary key already holds the partition key. No index to build first, unlike
-- carrier_receipts.
--
-- The bound below which every event id made so far lies: the smallest id of the day after
-- tomorrow (UTC), so events written during the deploy still pass. The same bound for both
-- tables: a delivery's id is its event's id. NOT VALID: instant; step 2 checks the rows.
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
  bound text := pg_temp.event_id_bound(date_trunc('day', now(), 'UTC') + interval '2 days');
BEGIN
  EXECUTE format('ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_partition_bound CHECK (id < %L) NOT VALID', bound);
  EXECUTE format(
    'ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_partition_bound CHECK (event_id < %L) NOT VALID', bound);
END $$;

DROP FUNCTION pg_temp.event_id_bound(timestamptz);
