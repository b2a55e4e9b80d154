-- A charge or refund entry covers every message of one account that one statement charged or
-- refunded (docs/decisions.md#ledger-per-statement): message_count says how many; message_id
-- names the message only when it is one. Entries written before keep one message each and a
-- NULL count. A nullable column without a default: no rewrite, a moment's lock.
ALTER TABLE "credit_ledger" ADD COLUMN "message_count" INTEGER;
