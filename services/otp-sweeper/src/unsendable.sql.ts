/**
 * Queued OTP messages whose OTP can no longer be verified: expired (marked or only past
 * `expires_at`), replaced by a newer OTP, locked by wrong codes, or already verified.
 * Only messages nothing of which reached (or is on its way to) a carrier: the same
 * condition as the state machine's refund, so failing one always returns its credits.
 * $2 and $3 bound the message ids to the weeks such a message can be in (an OTP's SMS is due
 * when sent, and one past its validity is failed by the validity sweep; docs/decisions.md#partitions).
 */
export const UNSENDABLE_OTP_MESSAGES = `
SELECT m.id AS message_id, o.id AS otp_id,
       (CASE WHEN o.status = 'pending' THEN 'expired' ELSE o.status::text END) AS otp_status
FROM messages m JOIN otps o ON o.message_id = m.id
WHERE m.status = 'queued' AND m.otp_id IS NOT NULL AND m.id >= $2 AND m.id < $3
  AND (o.status <> 'pending' OR o.expires_at <= now())
  AND NOT EXISTS (${reachedCarrier("m.id")} AND s.message_id >= $2 AND s.message_id < $3)
ORDER BY o.expires_at, m.id
LIMIT $1`;

/**
 * The message's row lock, taken before anything is checked: the dispatcher marks a
 * segment `submitting` only while it holds a share lock on its still-queued message, so
 * from here on it either has already marked (seen by NOTHING_REACHED_CARRIER, a later
 * statement with a fresh snapshot) or will find the message failed and send nothing.
 * One statement cannot do both: after waiting for the lock, its NOT EXISTS would still
 * read the snapshot taken before the wait and miss a segment marked meanwhile.
 */
export const LOCK_QUEUED_MESSAGE = `
SELECT m.id FROM messages m WHERE m.id = $1 AND m.status = 'queued' FOR NO KEY UPDATE OF m`;

export const NOTHING_REACHED_CARRIER = `SELECT NOT EXISTS (${reachedCarrier("$1")}) AS unsent`;

function reachedCarrier(messageId: string): string {
  return `SELECT 1 FROM message_segments s WHERE s.message_id = ${messageId}
          AND (s.carrier_message_id IS NOT NULL OR s.status IN ('submitting', 'submitted', 'delivered'))`;
}
