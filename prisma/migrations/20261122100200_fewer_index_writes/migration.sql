-- The full indexes the two partial ones before this replace.
DROP INDEX IF EXISTS "carrier_receipts_outcome_received_at_idx";

DROP INDEX IF EXISTS "smpp_submits_account_id_concat_key_idx";

-- A segment's last update (submitted -> delivered or failed: status, error_code, done_at)
-- changes no indexed column, so it is a HOT update when its page has room for the new
-- version: leave a fifth of each page free for it. Applies to pages written from now on.
ALTER TABLE "message_segments" SET (fillfactor = 80);
