-- Step 1 of 3 turning messages, message_events and message_segments into tables partitioned by
-- the week of the message id (docs/decisions.md#partitions). The keys stay: a message id is
-- msg_<ULID>, whose first ten ULID characters are a time (since this change, when the message
-- is due), so a week's ids form one key range, and each table's primary key already holds its
-- partition key (messages: id; the others: message_id first).
--
-- The bound below which every message id made so far lies: the first Monday (00:00 UTC) at
-- least two days ahead, so messages accepted during the deploy still pass, and the week
-- partitions that follow start on a week's first day. The same bound for the three tables: a
-- message's history and segments go where the message goes. NOT VALID: instant; step 2 checks
-- the rows. Run the three steps before the code that makes due-time ids (a message scheduled
-- past the bound would fail this check until step 3).
-- The smallest id with a prefix made at a time or later: the prefix, '_' and the ULID's ten
-- time characters (Crockford base32 of the milliseconds). The SQL twin of @sms/ids' idBoundAt,
-- which a test holds it equal to; kept for the migrations that follow and for operators
-- (which week or day an id range is).
CREATE FUNCTION id_bound_at(prefix text, at timestamptz) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  ms bigint := floor(extract(epoch FROM at) * 1000)::bigint;
  ulid_time text := '';
BEGIN
  FOR i IN 1..10 LOOP
    ulid_time := substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (ms % 32)::int + 1, 1) || ulid_time;
    ms := ms / 32;
  END LOOP;
  RETURN prefix || '_' || ulid_time;
END $$;

DO $$
DECLARE
  bound text := id_bound_at('msg',
    (date_trunc('week', (now() + interval '2 days') AT TIME ZONE 'UTC') + interval '7 days') AT TIME ZONE 'UTC');
BEGIN
  EXECUTE format('ALTER TABLE messages ADD CONSTRAINT messages_partition_bound CHECK (id < %L) NOT VALID', bound);
  EXECUTE format(
    'ALTER TABLE message_events ADD CONSTRAINT message_events_partition_bound CHECK (message_id < %L) NOT VALID', bound);
  EXECUTE format(
    'ALTER TABLE message_segments ADD CONSTRAINT message_segments_partition_bound CHECK (message_id < %L) NOT VALID', bound);
END $$;

