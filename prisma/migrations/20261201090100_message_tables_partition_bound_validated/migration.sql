-- Step 2 of 3 (docs/decisions.md#partitions): checks the existing rows against the bound. It
-- reads each table under a SHARE UPDATE EXCLUSIVE lock, which lets reads and writes through;
-- with the checks validated, step 3 attaches the tables without scanning them.
ALTER TABLE "messages" VALIDATE CONSTRAINT "messages_partition_bound";
ALTER TABLE "message_events" VALIDATE CONSTRAINT "message_events_partition_bound";
ALTER TABLE "message_segments" VALIDATE CONSTRAINT "message_segments_partition_bound";
