-- The validity sweep reads messages not yet with a carrier whose validity has ended, oldest
-- end first: a partial index holds the scheduled and queued ones alone (a message is in it
-- only while it waits), so the sweep reads only the rows it fails. CONCURRENTLY, alone in
-- its migration: messages takes writes while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_awaiting_expires_at_idx" ON "messages"("expires_at") WHERE "status" IN ('scheduled', 'queued');
