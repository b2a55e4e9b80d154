-- The reconciler pages through queued messages by (updated_at, id) to re-enqueue those no
-- dispatch job holds: a partial index of the queued ones alone, in that order, so a tick reads
-- its page instead of every queued message. It took the (status, scheduled_at) index before.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_queued_since_idx" ON "messages"("updated_at", "id") WHERE "status" = 'queued';
