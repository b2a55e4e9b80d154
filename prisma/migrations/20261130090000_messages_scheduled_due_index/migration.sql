-- The scheduler promotes due scheduled messages, oldest first: a partial index holds the
-- scheduled ones alone. It replaces the index on (status, scheduled_at), which held every
-- message and took two new entries per message (its status changes are not HOT updates).
-- CONCURRENTLY, alone in its migration: messages takes writes while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_scheduled_due_idx" ON "messages"("scheduled_at") WHERE "status" = 'scheduled';
