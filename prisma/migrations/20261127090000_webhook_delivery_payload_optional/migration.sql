-- A delivery no longer copies its event's payload: the sender builds the body from the
-- outbox_events row (docs/webhooks.md#storage). Rows written before keep their copy, which
-- the sender still prefers. Dropping NOT NULL changes the catalogue only (no rewrite, no scan);
-- its lock is brief, and the lock_timeout makes the migration fail and be run again rather
-- than queue every writer behind a long-running query.
SET LOCAL lock_timeout = '5s';
ALTER TABLE "webhook_deliveries" ALTER COLUMN "payload" DROP NOT NULL;
