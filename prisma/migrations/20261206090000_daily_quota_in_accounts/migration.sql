-- The daily quota is counted in the account's row, by the statement that charges the messages and
-- writes them (docs/decisions.md#daily-quota): quota_used messages were accepted on quota_day (UTC);
-- a row whose quota_day is not today has used none of today's. Counted in Redis before, where a
-- refused or failed write had to give its count back and a flush of Redis forgot the day. A
-- nullable column and a column with a constant default: no rewrite, a moment's lock. Gateways of
-- the previous release go on counting in Redis until they are replaced; the two counts do not add.
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "quota_day" DATE;
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "quota_used" INTEGER NOT NULL DEFAULT 0;
