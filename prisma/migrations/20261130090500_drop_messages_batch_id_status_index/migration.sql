-- Replaced by the partial messages_batch_status_idx.
DROP INDEX CONCURRENTLY IF EXISTS "messages_batch_id_status_idx";
