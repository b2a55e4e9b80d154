-- The relay takes the oldest events of messages that are not `bulk` ahead of the backlog too, so
-- one account's campaign (bulk) does not delay another account's single sends' webhooks
-- (docs/webhooks.md#relay-order). A column with a constant default is added without rewriting
-- the table, and outbox_pending is the relay's backlog: small, so the index is built in a moment.
-- Writers of the previous release leave it false: their events are taken as before.

ALTER TABLE "outbox_pending" ADD COLUMN IF NOT EXISTS "bulk" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX IF NOT EXISTS "outbox_pending_not_bulk_seq_idx" ON "outbox_pending" ("seq") WHERE NOT "bulk";
