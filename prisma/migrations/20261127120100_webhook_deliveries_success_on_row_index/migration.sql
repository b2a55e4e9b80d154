-- The dashboard's attempt list reads an account's successes newest first, as it read them from
-- webhook_attempts (account_id, started_at). Partial: only deliveries whose success is on the
-- row are in it. CONCURRENTLY, alone in its migration: writers go on while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_deliveries_success_on_row_idx" ON "webhook_deliveries"("account_id", "last_attempt_at") WHERE "success_on_row";
