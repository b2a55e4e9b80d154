-- Replaced by messages_scheduled_due_idx and messages_queued_since_idx (the two migrations before).
DROP INDEX CONCURRENTLY IF EXISTS "messages_status_scheduled_at_idx";
