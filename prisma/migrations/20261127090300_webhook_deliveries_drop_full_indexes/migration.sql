-- The full indexes the two partial ones before this replace; (account_id, created_at) had no
-- reader. Each DROP holds its lock only for the catalogue change; lock_timeout as in 20261127090000.
SET LOCAL lock_timeout = '5s';
DROP INDEX IF EXISTS "webhook_deliveries_account_id_created_at_idx";
DROP INDEX IF EXISTS "webhook_deliveries_status_next_attempt_at_idx";
DROP INDEX IF EXISTS "webhook_deliveries_account_id_status_created_at_idx";
