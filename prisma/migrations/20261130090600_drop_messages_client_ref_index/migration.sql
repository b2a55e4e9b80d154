-- Replaced by the partial messages_client_ref_idx.
DROP INDEX CONCURRENTLY IF EXISTS "messages_account_id_client_ref_created_at_idx";
