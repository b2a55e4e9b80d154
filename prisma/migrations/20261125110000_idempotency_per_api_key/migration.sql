-- Idempotency keys are scoped per API key, not per account (issue 19 item 9): one key's stored
-- answer must never replay for another key of the account. Records from before carry '' and
-- match no request; they expire within IDEMPOTENCY_TTL_HOURS.
ALTER TABLE "idempotency_records" ADD COLUMN "api_key_id" TEXT NOT NULL DEFAULT '';
ALTER TABLE "idempotency_records" ALTER COLUMN "api_key_id" DROP DEFAULT;
ALTER TABLE "idempotency_records" DROP CONSTRAINT "idempotency_records_pkey";
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("account_id", "api_key_id", "key");
