/*
 * The message counts' deltas (docs/decisions.md#message-counts), appended by the two writers of
 * history in the statement that writes it: acceptance (a message's first status) and
 * applyTransitions (every change after). Each is an INSERT … SELECT for a data-modifying CTE,
 * summed per (account, hour, status) in key order, so a batch adds one row per count it touches.
 * The hour is cut in UTC whatever the session's time zone.
 */

/** Over `upd` (id, account_id, created_at, status, previous_status): +1 to the new status, -1 to the previous one. */
export const MESSAGE_COUNT_DELTAS_OF_CHANGES = `INSERT INTO message_count_deltas (account_id, hour, status, delta)
  SELECT upd.account_id, date_trunc('hour', upd.created_at, 'UTC'), change.status, sum(change.delta)
  FROM upd CROSS JOIN LATERAL (VALUES (upd.status, 1), (upd.previous_status, -1)) AS change(status, delta)
  GROUP BY 1, 2, 3
  HAVING sum(change.delta) <> 0
  ORDER BY 1, 2, 3`;

/** Over `m` (account_id, created_at, status as text), the accepted messages: +1 to each one's first status. */
export const MESSAGE_COUNT_DELTAS_OF_ACCEPTED = `INSERT INTO message_count_deltas (account_id, hour, status, delta)
  SELECT m.account_id, date_trunc('hour', m.created_at, 'UTC'), m.status::"MessageStatus", count(*)
  FROM m
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3`;
