-- The trigger that appends message count deltas (docs/decisions.md#message-counts) joins each
-- statement's new history rows to their messages. messages is partitioned by the week of its id
-- now: a plan cached by PL/pgSQL would name no week, so it would read every week of messages
-- (or keep a scan chosen while the current week was empty). The join is planned for each
-- statement instead, bounded by the smallest and largest message id of its rows, so it reads
-- the week (rarely two) those rows are in.
CREATE OR REPLACE FUNCTION "message_events_count_deltas"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lowest text;
  highest text;
BEGIN
  SELECT min(message_id), max(message_id) INTO lowest, highest FROM inserted;
  IF lowest IS NULL THEN
    RETURN NULL;
  END IF;
  EXECUTE format($sql$
    INSERT INTO message_count_deltas (account_id, hour, status, delta)
    SELECT m.account_id, date_trunc('hour', m.created_at, 'UTC'), change.status, sum(change.delta)
    FROM inserted AS e
    JOIN messages AS m ON m.id = e.message_id
    CROSS JOIN LATERAL (VALUES (e.status, 1), (e.previous_status, -1)) AS change(status, delta)
    WHERE change.status IS NOT NULL AND m.id BETWEEN %L AND %L
    GROUP BY 1, 2, 3
    HAVING sum(change.delta) <> 0
    ORDER BY 1, 2, 3$sql$, lowest, highest);
  RETURN NULL;
END
$$;
