-- The sweep reads only unmatched receipts (a receipt that came before its submit was
-- recorded), a handful among millions: a partial index holds them alone, so a receipt that
-- is applied at once (nearly all) adds no entry to it. Replaces (outcome, received_at),
-- dropped in 20261122100200. CONCURRENTLY, alone in its migration: carrier_receipts keeps
-- every receipt, and dlr-ingest writes it while the index builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "carrier_receipts_unmatched_received_at_idx" ON "carrier_receipts"("received_at") WHERE "outcome" = 'unmatched';
