-- GET /v1/sms?client_ref=… looks up an account's messages by the customer's reference: only
-- messages that have one need an entry.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_client_ref_idx" ON "messages"("account_id", "client_ref", "created_at" DESC) WHERE "client_ref" IS NOT NULL;
