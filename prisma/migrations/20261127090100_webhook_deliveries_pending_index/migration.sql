-- The reconciler's index: pending deliveries by next_attempt_at. Partial, so a delivery that
-- has succeeded or failed (almost every row) holds no entry in it. CONCURRENTLY, alone in its
-- migration: writers go on while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_deliveries_pending_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "status" = 'pending';
