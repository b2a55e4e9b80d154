import { eventDataSql } from "@sms/message-state";

/** Whether any event waits for the relay: the oldest one's queue key, from the index. */
export const NEXT_PENDING = "SELECT seq FROM outbox_pending ORDER BY seq LIMIT 1";

/** Whether an event of a high message waits: from the partial index of those. */
export const NEXT_PENDING_HIGH = "SELECT seq FROM outbox_pending WHERE high ORDER BY seq LIMIT 1";

/**
 * Claims unpublished events by deleting their outbox_pending rows, in the caller's
 * transaction: every event (CLAIM_EVENTS), or the high ones only (CLAIM_HIGH_EVENTS). Each part is
 * in seq order, so a message's events (all of one class) keep their order. SKIP LOCKED lets relays
 * on several replicas, and the two kinds of relay, take disjoint rows; the delete only sticks if
 * the transaction commits, so a crash leaves them for the next. The event rows themselves are only
 * read, by the two statements below, once the claim has told which messages they are of.
 *
 * Every event: the oldest `high` ones (events of OTPs and sends marked high), the oldest that are
 * not `bulk` (not a batch's items) and the oldest of all, up to $1 each. So a high event waits for
 * one claim, not for the backlog of another account's campaign ahead of it; a single send's event
 * does not wait for a campaign's burst of bulk events; and the backlog moves by $1 a claim
 * whatever the other classes keep bringing (docs/webhooks.md#relay-order).
 */
export const CLAIM_EVENTS = `
WITH high_first AS (
  SELECT seq FROM outbox_pending WHERE high ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
), not_bulk AS (
  SELECT seq FROM outbox_pending WHERE NOT bulk ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
), oldest AS (
  SELECT seq FROM outbox_pending ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
)
DELETE FROM outbox_pending
-- An array, so the rows are found by key: as a semi-join the planner hashed the parts and
-- read the whole backlog to match them.
WHERE seq = ANY (ARRAY(SELECT seq FROM high_first UNION SELECT seq FROM not_bulk UNION SELECT seq FROM oldest))
RETURNING event_id, message_id, sequence, created_at`;

/** The oldest `high` events only, up to $1: the relay of webhook-delivery's high lane (EVENT_RELAY_HIGH). */
export const CLAIM_HIGH_EVENTS = `
DELETE FROM outbox_pending
WHERE seq IN (SELECT seq FROM outbox_pending WHERE high ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
RETURNING event_id, message_id, sequence, created_at`;

/** What the relay publishes of each event, with its account's endpoint. */
const PUBLISHED_COLUMNS = `o.id, o.account_id, o.message_id, o.type, o.sequence, o.created_at, o.source, o.status,
       o.smpp_data, o.from_history, o.priority, e.enabled AS endpoint_enabled, e.event_types AS endpoint_event_types`;

/**
 * The claimed status events ($1 event ids, $2 message ids, $3 sequences, $4 claim times). A
 * status event is its history row (docs/decisions.md#status-events): its message gives the
 * account and source, its id its time (decoded by publishClaimed). The whole data is read only for
 * an SMPP customer's message, whose final events become receipts.
 *
 * $5 and $6 are the smallest and the largest of the message ids: planned for each run, the
 * statement then plans the one or two weeks of these messages, not every retained week (13 under
 * the default retention, 4–5 ms of planning a claim; docs/decisions.md#message-weeks).
 */
export const READ_STATUS_EVENTS = `
SELECT ${PUBLISHED_COLUMNS}
FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[]) AS claimed(event_id, message_id, sequence, created_at)
CROSS JOIN LATERAL (
  -- One key lookup per claimed event, whatever the statistics say: LIMIT keeps the planner
  -- from turning this into a hash join over all of a table.
  SELECT claimed.event_id AS id, m.account_id, claimed.message_id, 'message.' || h.status AS type,
         claimed.sequence, claimed.created_at, m.source::text AS source, h.status::text AS status,
         CASE WHEN m.source = 'smpp' THEN message_event_data(claimed.message_id, claimed.sequence) END AS smpp_data,
         true AS from_history, m.priority::text AS priority
  -- LEFT: a status event whose message is not found still comes back, with no type, for the
  -- relay to report, not drop.
  FROM (SELECT) AS event
  LEFT JOIN messages AS m ON m.id = claimed.message_id AND m.id >= $5 AND m.id <= $6
  LEFT JOIN message_events AS h
    ON h.message_id = claimed.message_id AND h.sequence = claimed.sequence AND h.message_id >= $5 AND h.message_id <= $6
  LIMIT 1
) AS o
LEFT JOIN webhook_endpoints AS e ON e.account_id = o.account_id`;

/**
 * The claimed outbox_events rows ($1): message.received (an inbound message, in_…, has no messages
 * row: LEFT), or a status event written before status events became history rows. Read only when
 * a claim holds one. $2 leaves out the weeks of messages not due yet, which have no events
 * (docs/decisions.md#partitions). $3 and $4, the smallest and the largest of the event ids, leave
 * out the other days: a range, not `= ANY($1)`, which the planner took as each probe's index
 * condition, reading every claimed id for each (a claim of 500 read 250,000 index entries).
 */
export const READ_OUTBOX_EVENTS = `
SELECT ${PUBLISHED_COLUMNS}
FROM unnest($1::text[]) AS claimed(event_id)
CROSS JOIN LATERAL (
  SELECT o.id, o.account_id, o.message_id, o.type, o.sequence, o.created_at, m.source::text AS source,
         COALESCE(h.status::text, o.payload->>'status') AS status,
         CASE WHEN m.source = 'smpp' THEN ${eventDataSql("o")} END AS smpp_data, false AS from_history,
         m.priority::text AS priority
  FROM outbox_events AS o
  LEFT JOIN messages AS m ON m.id = o.message_id AND m.id < $2
  LEFT JOIN message_events AS h ON h.message_id = o.message_id AND h.sequence = o.sequence AND h.message_id < $2
  WHERE o.id = claimed.event_id AND o.id >= $3 AND o.id <= $4
  LIMIT 1
) AS o
LEFT JOIN webhook_endpoints AS e ON e.account_id = o.account_id`;

/**
 * One delivery per event for an account with an endpoint: pending, or failed at once
 * when the endpoint is disabled (kept, so a replay can send it after re-enabling).
 * No copy of the event's data: the sender builds the body from the event (docs/webhooks.md#storage):
 * a status event's from its message and history row (message_id, sequence), others from their
 * outbox_events row. Both are written once and never changed; `created_at` is the event's time.
 * A pending delivery is written with the claim of the job that will send it ($7).
 * ON CONFLICT: a relay retried after a lost commit acknowledgement writes nothing twice.
 */
export const INSERT_DELIVERIES = `
INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, status, next_attempt_at, last_error, created_at, claim,
                                sequence)
SELECT d.event_id, d.account_id, d.message_id, d.event_type, d.status::"WebhookDeliveryStatus",
       CASE WHEN d.status = 'pending' THEN now() END,
       CASE WHEN d.status = 'failed' THEN 'endpoint disabled' END,
       d.created_at, d.claim, d.sequence
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::int[])
  AS d(event_id, account_id, message_id, event_type, status, created_at, claim, sequence)
ON CONFLICT (event_id) DO NOTHING
RETURNING event_id, account_id, status::text AS status`;
