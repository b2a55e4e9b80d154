-- Only the parts of a concatenated message have a concat_key, and every lookup names one
-- (concat_key = $n implies IS NOT NULL): a whole message's submit adds no entry. Replaces
-- (account_id, concat_key), dropped in 20261122100200. CONCURRENTLY, alone in its
-- migration: the smpp-server writes smpp_submits while the index builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "smpp_submits_account_id_concat_key_parts_idx" ON "smpp_submits"("account_id", "concat_key") WHERE "concat_key" IS NOT NULL;
