-- The events the relay has not published yet move from a published_at column of
-- outbox_events to a narrow queue beside it. Marking a wide event row published wrote a
-- full copy of it (payload included) with its index entries: the largest write of the
-- relay. Now an event row is written once, and the relay deletes a small pending row.
--
-- Written to be safe under either migrate route: the driver adapter's own, which ran a
-- migration one statement at a time, split at every semicolon (no semicolon in comments or
-- bodies, each step safe to run again), and ours since, which applies it whole, in one
-- implicit transaction (packages/db/src/migrate-adapter.ts). The trigger is in place before the
-- backfill, so no event is missed. An event that a relay of the previous release publishes
-- during the migration may be published again by the new relay: deliveries and SMPP
-- receipts are unique per event, so nothing is sent twice. Relays of the previous release
-- (they set published_at) fail once the column is gone, until replaced. The events wait in
-- outbox_pending meanwhile, nothing is lost.

CREATE TABLE IF NOT EXISTS "outbox_pending" (
    "seq" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_pending_pkey" PRIMARY KEY ("seq")
);

-- Every writer of outbox_events (acceptance, transitions, promotion, tools) is covered by the
-- table itself: one INSERT per statement, in the order of the events. The body's semicolons
-- are written \073 (octal, in an E'' string) for the splitting route above.
CREATE OR REPLACE FUNCTION "outbox_events_pending"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO outbox_pending (event_id, created_at)
  SELECT id, created_at FROM inserted ORDER BY created_at, sequence\073
  RETURN NULL\073
END';

DROP TRIGGER IF EXISTS "outbox_events_pending" ON "outbox_events";

CREATE TRIGGER "outbox_events_pending" AFTER INSERT ON "outbox_events"
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION "outbox_events_pending"();

INSERT INTO outbox_pending (event_id, created_at)
SELECT o.id, o.created_at FROM outbox_events AS o
WHERE o.published_at IS NULL AND NOT EXISTS (SELECT 1 FROM outbox_pending AS p WHERE p.event_id = o.id)
ORDER BY o.created_at, o.sequence;

DROP INDEX IF EXISTS "outbox_events_unpublished_idx";

ALTER TABLE "outbox_events" DROP COLUMN IF EXISTS "published_at";
