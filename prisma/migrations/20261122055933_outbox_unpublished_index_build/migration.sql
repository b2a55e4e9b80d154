-- The relay claims the oldest unpublished events, and the metrics count them. A partial index
-- holds only those: the claim reads it in order and stops at its LIMIT (the full index made it
-- sort the whole backlog on every claim), and marking an event published adds no entry.
-- CONCURRENTLY, alone in its migration (it cannot run in a transaction): acceptances keep
-- writing outbox_events while it builds over a large table.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "outbox_events_unpublished_idx" ON "outbox_events"("created_at") WHERE "published_at" IS NULL;
