import { eventDataSql } from "@sms/message-state";

/** Whether any event waits for the relay: the oldest one's queue key, from the index. */
export const NEXT_PENDING = "SELECT seq FROM outbox_pending ORDER BY seq LIMIT 1";

/** Whether an event of a high message waits: from the partial index of those. */
export const NEXT_PENDING_HIGH = "SELECT seq FROM outbox_pending WHERE high ORDER BY seq LIMIT 1";

/**
 * Every event: the oldest `high` ones (events of OTPs and sends marked high) and the oldest of
 * all, up to $1 each. So a high event waits for one claim, not for the backlog of another
 * account's campaign ahead of it, and the backlog moves by $1 a claim whatever high events keep
 * coming (docs/webhooks.md#relay-order).
 */
const CLAIM_ALL = `high_first AS (
  SELECT seq FROM outbox_pending WHERE high ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
), oldest AS (
  SELECT seq FROM outbox_pending ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
), claimed AS (
  DELETE FROM outbox_pending
  -- An array, so the rows are found by key: as a semi-join the planner hashed the two parts and
  -- read the whole backlog to match them.
  WHERE seq = ANY (ARRAY(SELECT seq FROM high_first UNION SELECT seq FROM oldest))
  RETURNING event_id, message_id, sequence, created_at
)`;

/** The oldest `high` events only, up to $1: the relay of webhook-delivery's high lane (EVENT_RELAY_HIGH). */
const CLAIM_HIGH = `claimed AS (
  DELETE FROM outbox_pending
  WHERE seq IN (SELECT seq FROM outbox_pending WHERE high ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING event_id, message_id, sequence, created_at
)`;

/**
 * Claims unpublished events by deleting their outbox_pending rows, in the caller's
 * transaction: every event (CLAIM_ALL), or the high ones only. Each part is in seq order, so
 * a message's events (all of one class) keep their order. SKIP LOCKED lets relays on several
 * replicas, and the two kinds of relay, take disjoint rows; the delete only sticks if the
 * transaction commits, so a crash leaves them for the next. The event rows themselves are only read.
 */
const claimEvents = (highOnly: boolean) => `
WITH ${highOnly ? CLAIM_HIGH : CLAIM_ALL}
SELECT o.id, o.account_id, o.message_id, o.type, o.sequence, o.created_at, o.source, o.status, o.smpp_data,
       o.from_history, o.high, e.enabled AS endpoint_enabled, e.event_types AS endpoint_event_types
FROM claimed
CROSS JOIN LATERAL (
  -- One key lookup per claimed event, whatever the statistics say: LIMIT keeps the planner
  -- from turning this into a hash join over all of a table, the plan it chose and then kept
  -- (a prepared statement's generic plan) while the tables were small.
  -- A status event is its history row (docs/decisions.md#status-events): its message gives the
  -- account and source, its id its time (decoded by publishClaimed). The whole data is read only
  -- for an SMPP customer's message, whose final events become receipts. $2 leaves out the weeks
  -- of messages not due yet, which have no events (docs/decisions.md#partitions).
  SELECT claimed.event_id AS id, m.account_id, claimed.message_id, 'message.' || h.status AS type,
         claimed.sequence, claimed.created_at, m.source::text AS source, h.status::text AS status,
         CASE WHEN m.source = 'smpp' THEN message_event_data(claimed.message_id, claimed.sequence) END AS smpp_data,
         true AS from_history, m.priority = 'high' AS high
  -- LEFT: a status event whose message is not found (not below $2: a writer's clock over an hour
  -- ahead of this host's) still comes back, with no type, for the relay to report, not drop.
  FROM (SELECT) AS event
  LEFT JOIN messages AS m ON m.id = claimed.message_id AND m.id < $2
  LEFT JOIN message_events AS h ON h.message_id = claimed.message_id AND h.sequence = claimed.sequence AND h.message_id < $2
  WHERE claimed.message_id IS NOT NULL
  UNION ALL
  -- An outbox_events row: message.received (an inbound message, in_…, has no messages row: LEFT),
  -- or a status event written before status events became history rows.
  SELECT o.id, o.account_id, o.message_id, o.type, o.sequence, o.created_at, m.source::text,
         COALESCE(h.status::text, o.payload->>'status'),
         CASE WHEN m.source = 'smpp' THEN ${eventDataSql("o")} END, false, m.priority = 'high'
  FROM outbox_events AS o
  LEFT JOIN messages AS m ON m.id = o.message_id AND m.id < $2
  LEFT JOIN message_events AS h ON h.message_id = o.message_id AND h.sequence = o.sequence AND h.message_id < $2
  WHERE claimed.message_id IS NULL AND o.id = claimed.event_id
  LIMIT 1
) AS o
LEFT JOIN webhook_endpoints AS e ON e.account_id = o.account_id
ORDER BY o.created_at, o.sequence`;

export const CLAIM_EVENTS = claimEvents(false);
export const CLAIM_HIGH_EVENTS = claimEvents(true);

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
