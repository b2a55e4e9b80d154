-- Step 2 of 4 (docs/decisions.md#partitions): the bound below which every receipt received so
-- far lies, the start of the day after tomorrow (UTC), so rows written during the deploy still
-- pass. NOT VALID: instant, existing rows are checked by step 3 without blocking writes.
DO $$
DECLARE
  bound timestamptz := date_trunc('day', now(), 'UTC') + interval '2 days';
BEGIN
  EXECUTE format(
    'ALTER TABLE carrier_receipts ADD CONSTRAINT carrier_receipts_partition_bound CHECK (received_at < %L) NOT VALID',
    bound);
END $$;
