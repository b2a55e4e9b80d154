-- Step 1 of 4 turning carrier_receipts into a table partitioned by day of received_at
-- (docs/decisions.md#partitions). A partitioned table's primary key must hold its partition
-- key, so the table becomes the partition of everything received so far only if it already has
-- a unique (id, received_at): built here CONCURRENTLY, alone in its migration, while dlr-ingest
-- writes receipts, so step 4 adopts it instead of building it under a lock.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "carrier_receipts_id_received_at_key" ON "carrier_receipts" ("id", "received_at");
