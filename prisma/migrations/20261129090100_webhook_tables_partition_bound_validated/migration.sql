-- Step 2 of 3 (docs/decisions.md#partitions): checks the existing rows against the bound. It
-- reads each table under a SHARE UPDATE EXCLUSIVE lock, which lets reads and writes through;
-- with the check validated, step 3 attaches the tables without scanning them.
ALTER TABLE "outbox_events" VALIDATE CONSTRAINT "outbox_events_partition_bound";
ALTER TABLE "webhook_deliveries" VALIDATE CONSTRAINT "webhook_deliveries_partition_bound";
