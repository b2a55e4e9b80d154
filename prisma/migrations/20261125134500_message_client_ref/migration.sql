-- client_ref: the customer's own reference for a message, echoed in GET, lists and
-- every webhook; GET /v1/sms?client_ref= filters on it per account, newest first.
ALTER TABLE "messages" ADD COLUMN "client_ref" TEXT;

CREATE INDEX "messages_account_id_client_ref_created_at_idx" ON "messages"("account_id", "client_ref", "created_at" DESC);
