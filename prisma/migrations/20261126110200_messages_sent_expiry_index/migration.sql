-- The receipt-timeout sweep reads `sent` messages whose validity plus the grace has ended:
-- a partial index of the sent ones alone, by the end of their validity. CONCURRENTLY, alone
-- in its migration: messages takes writes while it builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_sent_expires_at_idx" ON "messages"("expires_at") WHERE "status" = 'sent';
