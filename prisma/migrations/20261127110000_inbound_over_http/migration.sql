-- Carriers that post inbound messages over HTTP (POST /v1/carriers/{id}/inbound) authenticate
-- with a token of their own; only its SHA-256 is kept (the token is 32 random bytes: no need
-- for a slow hash). NULL: the carrier may not post.
ALTER TABLE "carriers" ADD COLUMN "inbound_token_hash" TEXT;

-- The carrier's id of a message posted over HTTP: a retry with the same id is stored once.
-- NULLs never conflict (SMPP deliver_sm carries no such id).
ALTER TABLE "inbound_messages" ADD COLUMN "carrier_message_id" TEXT;
CREATE UNIQUE INDEX "inbound_messages_carrier_id_carrier_message_id_key" ON "inbound_messages"("carrier_id", "carrier_message_id");
