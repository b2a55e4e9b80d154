-- DropIndex
DROP INDEX "outbox_events_published_at_created_at_idx";


-- The relay claims the oldest unpublished events, and the metrics count them. A partial index
-- holds only those: the claim reads it in order and stops at its LIMIT (the full index made it
-- sort the whole backlog on every claim), and marking an event published adds no entry.
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("created_at") WHERE "published_at" IS NULL;
