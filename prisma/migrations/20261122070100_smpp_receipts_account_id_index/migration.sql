-- The receipts of an account in id order, for the claim (next migration drops the index on
-- next_attempt_at). CONCURRENTLY, alone in its migration (it cannot run in a transaction):
-- receipts kept for an account that stays unbound can make the table large, and the relay
-- keeps writing it while the index builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "smpp_receipts_account_id_id_idx" ON "smpp_receipts"("account_id", "id");
