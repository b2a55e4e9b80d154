-- Step 3 of 3 (docs/decisions.md#partitions): one short transaction, no scan. Each table is
-- renamed <table>_legacy and attached, as the partition of every id below the bound, to a new
-- table of the same name partitioned by range of its message id. Its indexes are adopted as the
-- partitions of the new table's (same columns and predicates), as are the foreign keys of
-- messages into accounts and batches (added to the empty new table first).
--
-- The foreign keys of message_events, message_segments and otps into messages go: a partition
-- of a referenced table could only leave by a DETACH that checks every partition of each
-- referencing table (seconds to minutes, growing with what is kept), so a week could not be
-- dropped quickly. The statements that write them hold the integrity instead: a message and
-- its first event are written in one statement, later events and segments under a lock of the
-- message's row, and retention drops a week of the three tables together.
--
-- The weeks from the bound on, and a default partition for any id no week covers, are made two
-- migrations later, outside this transaction's locks (until then only ids below the bound come:
-- the code that makes due-time ids starts after the migrations). The two triggers move to the
-- new tables.
DO $$
DECLARE
  bound text;
BEGIN
  -- Every table first, in the order the writing statements take them (messages before its
  -- history, segments and OTPs): taken one by one below, the first foreign key's drop locked
  -- message_events before messages, and deadlocked with an acceptance that held messages.
  LOCK TABLE messages, message_events, message_segments, otps IN ACCESS EXCLUSIVE MODE;
  SELECT (regexp_match(pg_get_constraintdef(oid), '''([^'']+)'''))[1] INTO STRICT bound
    FROM pg_constraint
    WHERE conname = 'messages_partition_bound' AND conrelid = 'messages'::regclass;

  ALTER TABLE message_events DROP CONSTRAINT message_events_message_id_fkey;
  ALTER TABLE message_segments DROP CONSTRAINT message_segments_message_id_fkey;
  ALTER TABLE otps DROP CONSTRAINT otps_message_id_fkey;

  -- messages
  ALTER TABLE messages RENAME TO messages_legacy;
  ALTER TABLE messages_legacy RENAME CONSTRAINT messages_pkey TO messages_legacy_pkey;
  ALTER TABLE messages_legacy RENAME CONSTRAINT messages_account_id_fkey TO messages_legacy_account_id_fkey;
  ALTER TABLE messages_legacy RENAME CONSTRAINT messages_batch_id_fkey TO messages_legacy_batch_id_fkey;
  ALTER INDEX messages_account_id_created_at_id_idx RENAME TO messages_legacy_account_id_created_at_id_idx;
  ALTER INDEX messages_account_id_status_created_at_idx RENAME TO messages_legacy_account_id_status_created_at_idx;
  ALTER INDEX messages_account_id_to_number_created_at_idx RENAME TO messages_legacy_account_id_to_number_created_at_idx;
  ALTER INDEX messages_awaiting_expires_at_idx RENAME TO messages_legacy_awaiting_expires_at_idx;
  ALTER INDEX messages_batch_status_idx RENAME TO messages_legacy_batch_status_idx;
  ALTER INDEX messages_client_ref_idx RENAME TO messages_legacy_client_ref_idx;
  ALTER INDEX messages_queued_since_idx RENAME TO messages_legacy_queued_since_idx;
  ALTER INDEX messages_scheduled_due_idx RENAME TO messages_legacy_scheduled_due_idx;
  ALTER INDEX messages_sent_expires_at_idx RENAME TO messages_legacy_sent_expires_at_idx;
  CREATE TABLE messages (
    LIKE messages_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS,
    CONSTRAINT messages_pkey PRIMARY KEY (id)
  ) PARTITION BY RANGE (id);
  ALTER TABLE messages ADD CONSTRAINT messages_account_id_fkey FOREIGN KEY (account_id)
    REFERENCES accounts(id) ON UPDATE CASCADE ON DELETE RESTRICT;
  ALTER TABLE messages ADD CONSTRAINT messages_batch_id_fkey FOREIGN KEY (batch_id)
    REFERENCES batches(id) ON UPDATE CASCADE ON DELETE SET NULL;
  CREATE INDEX messages_account_id_created_at_id_idx ON messages (account_id, created_at DESC, id DESC);
  CREATE INDEX messages_account_id_status_created_at_idx ON messages (account_id, status, created_at DESC);
  CREATE INDEX messages_account_id_to_number_created_at_idx ON messages (account_id, to_number, created_at DESC);
  CREATE INDEX messages_awaiting_expires_at_idx ON messages (expires_at)
    WHERE status = ANY (ARRAY['scheduled'::"MessageStatus", 'queued'::"MessageStatus"]);
  CREATE INDEX messages_batch_status_idx ON messages (batch_id, status) WHERE batch_id IS NOT NULL;
  CREATE INDEX messages_client_ref_idx ON messages (account_id, client_ref, created_at DESC) WHERE client_ref IS NOT NULL;
  CREATE INDEX messages_queued_since_idx ON messages (updated_at, id) WHERE status = 'queued'::"MessageStatus";
  CREATE INDEX messages_scheduled_due_idx ON messages (scheduled_at) WHERE status = 'scheduled'::"MessageStatus";
  CREATE INDEX messages_sent_expires_at_idx ON messages (expires_at) WHERE status = 'sent'::"MessageStatus";
  EXECUTE format('ALTER TABLE messages ATTACH PARTITION messages_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
  ALTER TABLE messages_legacy DROP CONSTRAINT messages_partition_bound;

  -- message_events (the trigger that appends message count deltas moves to the new table)
  DROP TRIGGER message_events_count_deltas ON message_events;
  ALTER TABLE message_events RENAME TO message_events_legacy;
  ALTER TABLE message_events_legacy RENAME CONSTRAINT message_events_pkey TO message_events_legacy_pkey;
  CREATE TABLE message_events (
    LIKE message_events_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS,
    CONSTRAINT message_events_pkey PRIMARY KEY (message_id, sequence)
  ) PARTITION BY RANGE (message_id);
  EXECUTE format(
    'ALTER TABLE message_events ATTACH PARTITION message_events_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
  ALTER TABLE message_events_legacy DROP CONSTRAINT message_events_partition_bound;
  CREATE TRIGGER message_events_count_deltas AFTER INSERT ON message_events
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION message_events_count_deltas();

  -- message_segments (its receipt-key trigger is cloned onto every partition from the new table;
  -- fillfactor is per partition: a partitioned table has no storage of its own)
  DROP TRIGGER message_segments_receipt_key ON message_segments;
  ALTER TABLE message_segments RENAME TO message_segments_legacy;
  ALTER TABLE message_segments_legacy RENAME CONSTRAINT message_segments_pkey TO message_segments_legacy_pkey;
  ALTER INDEX message_segments_carrier_id_receipt_key_idx RENAME TO message_segments_legacy_carrier_id_receipt_key_idx;
  CREATE TABLE message_segments (
    LIKE message_segments_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS,
    CONSTRAINT message_segments_pkey PRIMARY KEY (message_id, seq)
  ) PARTITION BY RANGE (message_id);
  CREATE INDEX message_segments_carrier_id_receipt_key_idx ON message_segments (carrier_id, receipt_key);
  EXECUTE format(
    'ALTER TABLE message_segments ATTACH PARTITION message_segments_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
  ALTER TABLE message_segments_legacy DROP CONSTRAINT message_segments_partition_bound;
  CREATE TRIGGER message_segments_receipt_key BEFORE INSERT OR UPDATE OF carrier_message_id, carrier_id
    ON message_segments FOR EACH ROW EXECUTE FUNCTION message_segments_receipt_key();

END $$;

