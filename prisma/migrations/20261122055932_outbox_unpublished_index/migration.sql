-- DropIndex: replaced by the partial index of unpublished events (next migration).
DROP INDEX "outbox_events_published_at_created_at_idx";
