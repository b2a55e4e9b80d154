-- The relay takes the events of `high` messages (OTPs, sends marked high) ahead of the backlog,
-- so another account's campaign does not delay an OTP's webhooks (docs/webhooks.md#relay-order).
-- A column with a constant default is added without rewriting the table (PostgreSQL 11+), and
-- outbox_pending is the relay's backlog: small, so the index is built in a moment. Writers of
-- the previous release leave it false: their events keep their place in the backlog.

ALTER TABLE "outbox_pending" ADD COLUMN IF NOT EXISTS "high" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX IF NOT EXISTS "outbox_pending_high_seq_idx" ON "outbox_pending" ("seq") WHERE "high";
