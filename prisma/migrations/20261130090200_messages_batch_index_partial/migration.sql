-- GET /v1/batches/{id} counts a batch's messages by status: only messages of a batch need
-- an entry. The full index it replaces held every single send too, under batch_id NULL.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_batch_status_idx" ON "messages"("batch_id", "status") WHERE "batch_id" IS NOT NULL;
