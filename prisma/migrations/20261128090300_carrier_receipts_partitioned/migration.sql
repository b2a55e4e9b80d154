-- Step 4 of 4 (docs/decisions.md#partitions): one short transaction, no scan. The table is
-- renamed carrier_receipts_legacy and attached, as the partition of everything below the bound,
-- to a new carrier_receipts partitioned by day of received_at. Its indexes are adopted as the
-- partitions of the new table's indexes (same columns and predicates); the old (id) primary key
-- stays on it. Day partitions from the bound on are created ahead (a week here; the scheduler's
-- retention loop keeps a week ahead after that), and a default partition takes any row for
-- which no day partition exists yet, so an insert never fails. Retention drops whole days.
DO $$
DECLARE
  bound timestamptz;
  day timestamptz;
BEGIN
  SELECT (regexp_match(pg_get_constraintdef(oid), '''([^'']+)'''))[1]::timestamptz INTO STRICT bound
    FROM pg_constraint
    WHERE conname = 'carrier_receipts_partition_bound' AND conrelid = 'carrier_receipts'::regclass;

  ALTER TABLE carrier_receipts
    ADD CONSTRAINT carrier_receipts_id_received_at_key UNIQUE USING INDEX carrier_receipts_id_received_at_key;
  ALTER TABLE carrier_receipts RENAME TO carrier_receipts_legacy;
  ALTER TABLE carrier_receipts_legacy RENAME CONSTRAINT carrier_receipts_pkey TO carrier_receipts_legacy_pkey;
  ALTER TABLE carrier_receipts_legacy
    RENAME CONSTRAINT carrier_receipts_id_received_at_key TO carrier_receipts_legacy_id_received_at_key;
  ALTER INDEX carrier_receipts_carrier_id_carrier_message_id_idx
    RENAME TO carrier_receipts_legacy_carrier_id_carrier_message_id_idx;
  ALTER INDEX carrier_receipts_carrier_id_receipt_key_idx RENAME TO carrier_receipts_legacy_carrier_id_receipt_key_idx;
  ALTER INDEX carrier_receipts_unmatched_received_at_idx RENAME TO carrier_receipts_legacy_unmatched_received_at_idx;

  CREATE TABLE carrier_receipts (
    LIKE carrier_receipts_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS,
    CONSTRAINT carrier_receipts_pkey PRIMARY KEY (id, received_at)
  ) PARTITION BY RANGE (received_at);
  -- The id sequence belonged to the old table's column: dropping that partition later must not take it along.
  ALTER SEQUENCE carrier_receipts_id_seq OWNED BY carrier_receipts.id;
  CREATE INDEX carrier_receipts_carrier_id_carrier_message_id_idx ON carrier_receipts (carrier_id, carrier_message_id);
  CREATE INDEX carrier_receipts_carrier_id_receipt_key_idx ON carrier_receipts (carrier_id, receipt_key)
    WHERE outcome = 'unmatched';
  CREATE INDEX carrier_receipts_unmatched_received_at_idx ON carrier_receipts (received_at) WHERE outcome = 'unmatched';

  EXECUTE format('ALTER TABLE carrier_receipts ATTACH PARTITION carrier_receipts_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
  ALTER TABLE carrier_receipts_legacy DROP CONSTRAINT carrier_receipts_partition_bound;
  CREATE TABLE carrier_receipts_default PARTITION OF carrier_receipts DEFAULT;
  day := bound;
  WHILE day < bound + interval '7 days' LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF carrier_receipts FOR VALUES FROM (%L) TO (%L)',
      'carrier_receipts_p' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD'), day, day + interval '1 day');
    day := day + interval '1 day';
  END LOOP;
END $$;
