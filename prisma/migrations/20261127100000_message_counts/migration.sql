-- Per-account counts of messages by the hour they were created and their current status
-- (docs/decisions.md#message-counts), so the dashboard overview and the open-message gauges
-- read a few dozen rows instead of counting the messages themselves.
--
-- Every status change writes a message_events row (acceptance, promotion, every transition);
-- a statement trigger on that table appends the change as signed deltas (+1 to the new status,
-- -1 to the previous one) to message_count_deltas. Appending never waits on another
-- transaction: counters updated in place would make every message of an account in the same
-- hour queue behind one row lock. The scheduler folds the deltas into message_counts every
-- second or so; readers add the deltas not yet folded, so counts are exact at any moment.

CREATE TABLE "message_counts" (
    "account_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "status" "MessageStatus" NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "message_counts_pkey" PRIMARY KEY ("account_id","hour","status")
);

CREATE INDEX "message_counts_status_idx" ON "message_counts"("status");

CREATE TABLE "message_count_deltas" (
    "seq" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "status" "MessageStatus" NOT NULL,
    "delta" INTEGER NOT NULL,

    CONSTRAINT "message_count_deltas_pkey" PRIMARY KEY ("seq")
);

CREATE INDEX "message_count_deltas_account_id_hour_idx" ON "message_count_deltas"("account_id", "hour");

-- One INSERT per statement, already summed per (account, hour, status): a bulk acceptance of
-- 10,000 messages of one account adds one row. The hour is cut in UTC whatever the session's
-- time zone.
CREATE FUNCTION "message_events_count_deltas"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO message_count_deltas (account_id, hour, status, delta)
  SELECT m.account_id, date_trunc('hour', m.created_at, 'UTC'), change.status, sum(change.delta)
  FROM inserted AS e
  JOIN messages AS m ON m.id = e.message_id
  CROSS JOIN LATERAL (VALUES (e.status, 1), (e.previous_status, -1)) AS change(status, delta)
  WHERE change.status IS NOT NULL
  GROUP BY 1, 2, 3
  HAVING sum(change.delta) <> 0
  ORDER BY 1, 2, 3;
  RETURN NULL;
END
$$;

CREATE TRIGGER "message_events_count_deltas" AFTER INSERT ON "message_events"
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION "message_events_count_deltas"();

-- Messages that exist already are counted from their current status; the trigger covers
-- changes from here on (one transaction: no change falls between the two).
INSERT INTO message_counts (account_id, hour, status, count)
SELECT account_id, date_trunc('hour', created_at, 'UTC'), status, count(*)
FROM messages GROUP BY 1, 2, 3;
