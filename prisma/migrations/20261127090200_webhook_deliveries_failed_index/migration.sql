-- Replay and the dashboard's count read an account's failed deliveries by created_at: only
-- those rows are indexed. CONCURRENTLY, alone in its migration: writers go on while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_deliveries_failed_idx" ON "webhook_deliveries"("account_id", "created_at") WHERE "status" = 'failed';
