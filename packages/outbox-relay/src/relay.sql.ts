import { eventDataSql } from "@sms/message-state";

/** Whether any event waits for the relay: the oldest one's queue key, from the index. */
export const NEXT_PENDING = "SELECT seq FROM outbox_pending ORDER BY seq LIMIT 1";

/**
 * Claims the oldest unpublished events by deleting their outbox_pending rows, in the
 * caller's transaction. SKIP LOCKED lets relays on several replicas take disjoint rows;
 * the delete only sticks if the transaction commits, so a crash leaves them for the next.
 * The event rows themselves are only read.
 */
export const CLAIM_EVENTS = `
WITH claimed AS (
  DELETE FROM outbox_pending
  WHERE seq IN (SELECT seq FROM outbox_pending ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING event_id
)
SELECT o.id, o.account_id, o.message_id, o.type, o.sequence, o.created_at, o.source, o.status, o.smpp_data,
       e.enabled AS endpoint_enabled, e.event_types AS endpoint_event_types
FROM claimed
CROSS JOIN LATERAL (
  -- One key lookup per claimed event, whatever the statistics say: LIMIT keeps the planner
  -- from turning this into a hash join over all of outbox_events, the plan it chose and then
  -- kept (a prepared statement's generic plan) while the tables were small.
  -- The status from the event's history row (a status event stores no payload); the whole
  -- data only for an SMPP customer's message, whose final events become receipts.
  SELECT o.id, o.account_id, o.message_id, o.type, o.sequence, o.created_at, m.source::text AS source,
         COALESCE(h.status::text, o.payload->>'status') AS status,
         CASE WHEN m.source = 'smpp' THEN ${eventDataSql("o")} END AS smpp_data
  -- LEFT: a message.received event names an inbound message (in_…), which has no messages row.
  -- $2 leaves out the weeks of messages not due yet, which have no events (docs/decisions.md#partitions).
  FROM outbox_events AS o
  LEFT JOIN messages AS m ON m.id = o.message_id AND m.id < $2
  LEFT JOIN message_events AS h ON h.message_id = o.message_id AND h.sequence = o.sequence AND h.message_id < $2
  WHERE o.id = claimed.event_id
  LIMIT 1
) AS o
LEFT JOIN webhook_endpoints AS e ON e.account_id = o.account_id
ORDER BY o.created_at, o.sequence`;

/**
 * One delivery per event for an account with an endpoint: pending, or failed at once
 * when the endpoint is disabled (kept, so a replay can send it after re-enabling).
 * No copy of the event's data: the sender builds the body from the event row
 * (docs/webhooks.md#storage), which is written once and never changed.
 * A pending delivery is written with the claim of the job that will send it ($7).
 * ON CONFLICT: a relay retried after a lost commit acknowledgement writes nothing twice.
 */
export const INSERT_DELIVERIES = `
INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, status, next_attempt_at, last_error, created_at, claim)
SELECT d.event_id, d.account_id, d.message_id, d.event_type, d.status::"WebhookDeliveryStatus",
       CASE WHEN d.status = 'pending' THEN now() END,
       CASE WHEN d.status = 'failed' THEN 'endpoint disabled' END,
       d.created_at, d.claim
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[])
  AS d(event_id, account_id, message_id, event_type, status, created_at, claim)
ON CONFLICT (event_id) DO NOTHING
RETURNING event_id, account_id, status::text AS status`;
