-- No query reads the ledger by message: a charge or refund names its message for the reader
-- of an account's ledger, which goes by (account_id, id). The index cost an entry per charge.
DROP INDEX CONCURRENTLY IF EXISTS "credit_ledger_message_id_idx";
