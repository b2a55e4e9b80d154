import { MESSAGE_COUNT_DELTAS_OF_CHANGES } from "./counts/deltas.sql";

/**
 * Many status changes (at most one per message) as ONE statement: the set-based twin of
 * a single change, with the same rules, so a batch of receipts or submit records costs
 * one round trip instead of one per message.
 *
 * - `input` is one row per change: `from_list` holds the statuses that may move to
 *   `to_status`, comma-separated (an array of arrays does not unnest row by row).
 * - Every read of a message table names its weeks, not only a join to `input`: the tables are
 *   partitioned by the week of the id. `old` names the ids (`= ANY($1)`); a probe joined on an
 *   id is bounded by the smallest and the largest of them ($9, $10) instead, since beside a
 *   join the planner takes `= ANY($1)` as each probe's index condition and sorts the whole
 *   list again for every row (docs/decisions.md#partitions).
 * - `old` locks the message rows in id order: every batch (receipts, submit records)
 *   locks in the same order, so two batches never deadlock on message rows. Under
 *   READ COMMITTED a concurrent change makes this wait and then see the committed status,
 *   so exactly one of N racing callers finds its guard true (docs/messages.md#transitions).
 * - `upd` changes only rows whose status is in their `from_list`; `status_sequence` + 1.
 * - history, count deltas, webhook outbox, dispatch outbox and refunds all read `upd`. A status event is its
 *   history row (its event id) queued for the relay in outbox_pending (marked `high` or `bulk` by
 *   the message's class: the relay takes high ones first and bulk ones after the others,
 *   docs/webhooks.md#relay-order); its data is built from
 *   the message and the history when read (status-event.ts, docs/decisions.md#status-events).
 * - Refunds are summed per account (an UPDATE … FROM that matches one account row twice
 *   would apply only one of them) and written as one ledger entry per account and reason
 *   (docs/decisions.md#ledger-per-statement), whose balance_after runs in that order to the
 *   account's new balance.
 * - The final SELECT answers one row per input: the status seen under the lock, and the
 *   new sequence when it changed.
 *
 * A change to `sent` or `delivered` (what the dispatcher and receipts write, nearly every change)
 * queues nothing for dispatch and refunds nothing: APPLY_FORWARD_TRANSITIONS leaves those parts
 * out, and a third of the planning with them (planned for every batch: docs/decisions.md#partitions).
 *
 * A segment "reached a carrier" when the carrier gave it an id (submit_sm_resp OK) or
 * its submit_sm left us without a recorded answer ('submitting'). Only a message with
 * no such segment gets its credits back.
 */
const CHANGES = `input AS (
  SELECT * FROM unnest($1::text[], $2::"MessageStatus"[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[])
    AS t(id, to_status, from_list, at, error_code, error_message, event_id, event_type)
), old AS (
  SELECT id, status FROM messages WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE
), upd AS (
  UPDATE messages AS m SET
    status = i.to_status,
    status_sequence = m.status_sequence + 1,
    updated_at = now(),
    sent_at = CASE WHEN i.to_status IN ('sent', 'delivered') THEN COALESCE(m.sent_at, i.at) ELSE m.sent_at END,
    delivered_at = CASE WHEN i.to_status = 'delivered' THEN i.at ELSE m.delivered_at END,
    failed_at = CASE WHEN i.to_status = 'failed' THEN i.at ELSE m.failed_at END,
    canceled_at = CASE WHEN i.to_status = 'canceled' THEN i.at ELSE m.canceled_at END,
    error_code = COALESCE(i.error_code, m.error_code),
    error_message = COALESCE(i.error_message, m.error_message),
    -- An OTP text is needed only while the message waits for a carrier (docs/otp.md#the-sms).
    body_sealed = CASE WHEN i.to_status IN ('scheduled', 'queued') THEN m.body_sealed END
  FROM old JOIN input AS i ON i.id = old.id
  WHERE m.id = old.id AND m.id BETWEEN $9 AND $10 AND old.status::text = ANY(string_to_array(i.from_list, ','))
  RETURNING m.id, m.account_id, m.created_at, m.status, m.status_sequence, m.credits_charged, m.priority, old.status AS previous_status,
            i.at, i.error_code AS change_error_code, i.error_message AS change_error_message, i.event_id, i.event_type
), event_in AS (
  INSERT INTO message_events (message_id, sequence, status, previous_status, error_code, error_message, occurred_at, event_id)
  SELECT id, status_sequence, status, previous_status, change_error_code, change_error_message, at, event_id FROM upd
), counts_in AS (
  ${MESSAGE_COUNT_DELTAS_OF_CHANGES}
), outbox_in AS (
  INSERT INTO outbox_pending (event_id, message_id, sequence, high, bulk)
  SELECT event_id, id, status_sequence, priority = 'high', priority = 'bulk' FROM upd WHERE event_type IS NOT NULL ORDER BY id
)`;

const DISPATCH = `dispatch_in AS (
  INSERT INTO dispatch_outbox (message_id) SELECT id FROM upd WHERE status = 'queued' ON CONFLICT DO NOTHING
)`;

const REFUNDS = `refundable AS (
  SELECT upd.id, upd.account_id, upd.credits_charged, upd.status FROM upd
  WHERE upd.status IN ('failed', 'canceled') AND upd.credits_charged > 0
    AND NOT EXISTS (
      SELECT 1 FROM message_segments s
      WHERE s.message_id = upd.id AND s.message_id BETWEEN $9 AND $10 AND (s.carrier_message_id IS NOT NULL OR s.status IN ('submitting', 'submitted', 'delivered')))
), refund AS (
  UPDATE accounts AS a SET balance = a.balance + r.total, updated_at = now()
  FROM (SELECT account_id, sum(credits_charged) AS total FROM refundable GROUP BY account_id) AS r
  WHERE a.id = r.account_id
  RETURNING a.id AS account_id, a.balance, r.total
), refund_entries AS (
  SELECT f.account_id, f.status, sum(f.credits_charged) AS delta, count(*) AS messages,
         CASE WHEN count(*) = 1 THEN min(f.id) END AS message_id
  FROM refundable AS f GROUP BY f.account_id, f.status
), ledger_in AS (
  INSERT INTO credit_ledger (account_id, delta, balance_after, reason, message_id, message_count, note)
  SELECT e.account_id, e.delta,
         refund.balance - refund.total + sum(e.delta) OVER (PARTITION BY e.account_id ORDER BY e.status),
         'message_refund', e.message_id, e.messages,
         CASE WHEN e.status = 'canceled' THEN 'scheduled message canceled' ELSE 'message failed before reaching a carrier' END
  FROM refund_entries AS e JOIN refund ON refund.account_id = e.account_id
  -- The ids in the order the running balance takes.
  ORDER BY e.account_id, e.status
)`;

export const APPLY_TRANSITIONS = `
WITH ${CHANGES}, ${DISPATCH}, ${REFUNDS}
SELECT i.id, old.status AS current_status, upd.status_sequence AS sequence, upd.previous_status,
       COALESCE(f.credits_charged, 0) AS refunded
FROM input AS i
LEFT JOIN old ON old.id = i.id
LEFT JOIN upd ON upd.id = i.id
LEFT JOIN refundable AS f ON f.id = i.id`;

/** APPLY_TRANSITIONS for changes whose targets are all `sent` or `delivered`. */
export const APPLY_FORWARD_TRANSITIONS = `
WITH ${CHANGES}
SELECT i.id, old.status AS current_status, upd.status_sequence AS sequence, upd.previous_status,
       0 AS refunded
FROM input AS i
LEFT JOIN old ON old.id = i.id
LEFT JOIN upd ON upd.id = i.id`;
