-- Claiming a receipt moves its next_attempt_at. With that column in no index, and room left
-- on each page for the new version (fillfactor 70: a receipt is claimed about once before
-- its deliver_sm_resp deletes it), the claim is a HOT update: no new index entries.
DROP INDEX IF EXISTS "smpp_receipts_account_id_next_attempt_at_idx";

ALTER TABLE "smpp_receipts" SET (fillfactor = 70);
