/**
 * One status change as ONE statement, so it is atomic even outside a transaction:
 *
 * - `old` locks the message row and reads its status. Under READ COMMITTED a
 *   concurrent change makes this wait, then see the committed status, so exactly one
 *   of N racing callers finds the guard true (DESIGN §4: one transition, one refund).
 * - `upd` is the conditional UPDATE: only a row whose status is in `$3` (the statuses
 *   that may move to `$2`) changes; `status_sequence` grows by one.
 * - history, webhook outbox, dispatch outbox (when it became queued), and the refund
 *   with its ledger row all read `upd`, so they happen only when the row changed.
 * - The final SELECT reports the status seen under the lock when nothing changed.
 *
 * A segment "reached a carrier" when the carrier gave it an id (submit_sm_resp OK) or
 * its submit_sm left us without a recorded answer ('submitting': the carrier may have
 * it and may deliver it). Only a message with no such segment gets its credits back.
 */
export const APPLY_TRANSITION = `
WITH old AS (
  SELECT id, status FROM messages WHERE id = $1::text FOR UPDATE
), upd AS (
  UPDATE messages AS m SET
    status = $2::"MessageStatus",
    status_sequence = m.status_sequence + 1,
    updated_at = now(),
    sent_at = CASE WHEN $2::"MessageStatus" IN ('sent', 'delivered') THEN COALESCE(m.sent_at, $4::timestamptz) ELSE m.sent_at END,
    delivered_at = CASE WHEN $2::"MessageStatus" = 'delivered' THEN $4::timestamptz ELSE m.delivered_at END,
    failed_at = CASE WHEN $2::"MessageStatus" = 'failed' THEN $4::timestamptz ELSE m.failed_at END,
    canceled_at = CASE WHEN $2::"MessageStatus" = 'canceled' THEN $4::timestamptz ELSE m.canceled_at END,
    error_code = COALESCE($5::text, m.error_code),
    error_message = COALESCE($6::text, m.error_message),
    -- An OTP text is needed only while the message waits for a carrier (DESIGN §7).
    body_sealed = CASE WHEN $2::"MessageStatus" IN ('scheduled', 'queued') THEN m.body_sealed END
  FROM old
  WHERE m.id = old.id AND old.status = ANY($3::"MessageStatus"[])
  RETURNING m.id, m.account_id, m.status, m.status_sequence, m.to_number, m.sender_id, m.segment_count,
            m.batch_id, m.otp_id, m.credits_charged, m.sent_at, m.delivered_at, m.error_code, m.error_message,
            old.status AS previous_status
), event_in AS (
  INSERT INTO message_events (message_id, sequence, status, previous_status, error_code, error_message, occurred_at)
  SELECT id, status_sequence, status, previous_status, $5::text, $6::text, $4::timestamptz FROM upd
), outbox_in AS (
  INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
  SELECT $7::text, account_id, id, $8::text, status_sequence,
         jsonb_build_object(
           'to', to_number, 'status', status, 'previous_status', previous_status, 'sender_id', sender_id,
           'segments', segment_count, 'batch_id', batch_id, 'otp_id', otp_id, 'error_code', error_code, 'error_message', error_message,
           'sent_at', to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'delivered_at', to_char(delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
  FROM upd WHERE $8::text IS NOT NULL
), dispatch_in AS (
  INSERT INTO dispatch_outbox (message_id) SELECT id FROM upd WHERE status = 'queued' ON CONFLICT DO NOTHING
), refund AS (
  UPDATE accounts AS a SET balance = a.balance + upd.credits_charged, updated_at = now()
  FROM upd
  WHERE a.id = upd.account_id AND upd.status IN ('failed', 'canceled') AND upd.credits_charged > 0
    AND NOT EXISTS (
      SELECT 1 FROM message_segments s
      WHERE s.message_id = upd.id AND (s.carrier_message_id IS NOT NULL OR s.status IN ('submitting', 'submitted', 'delivered')))
  RETURNING a.id AS account_id, a.balance, upd.id AS message_id, upd.credits_charged, upd.status
), ledger_in AS (
  INSERT INTO credit_ledger (account_id, delta, balance_after, reason, message_id, note)
  SELECT account_id, credits_charged, balance, 'message_refund', message_id,
         CASE WHEN status = 'canceled' THEN 'scheduled message canceled' ELSE 'message failed before reaching a carrier' END
  FROM refund
)
SELECT old.status AS current_status, upd.status_sequence AS sequence, upd.previous_status,
       COALESCE(refund.credits_charged, 0) AS refunded
FROM old LEFT JOIN upd ON true LEFT JOIN refund ON true`;
