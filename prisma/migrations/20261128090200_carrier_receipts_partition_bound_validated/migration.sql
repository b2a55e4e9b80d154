-- Step 3 of 4 (docs/decisions.md#partitions): checks the existing rows against the bound. It
-- reads the whole table under a SHARE UPDATE EXCLUSIVE lock, which lets reads and writes
-- through; with the check validated, step 4 attaches the table without scanning it.
ALTER TABLE "carrier_receipts" VALIDATE CONSTRAINT "carrier_receipts_partition_bound";
