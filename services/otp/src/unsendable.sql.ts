/**
 * Queued OTP messages whose OTP can no longer be verified: expired (marked or only past
 * `expires_at`), replaced by a newer OTP, locked by wrong codes, or already verified.
 * Only messages nothing of which reached (or is on its way to) a carrier: the same
 * condition as the state machine's refund, so failing one always returns its credits.
 */
export const UNSENDABLE_OTP_MESSAGES = `
SELECT m.id AS message_id, o.id AS otp_id,
       (CASE WHEN o.status = 'pending' THEN 'expired' ELSE o.status::text END) AS otp_status
FROM messages m JOIN otps o ON o.message_id = m.id
WHERE m.status = 'queued' AND m.otp_id IS NOT NULL
  AND (o.status <> 'pending' OR o.expires_at <= now())
  AND NOT EXISTS (${reachedCarrier("m.id")})
ORDER BY o.expires_at, m.id
LIMIT $1`;

/**
 * Run under the message's row lock, just before the transition: the dispatcher may have
 * put a segment on the wire since the candidates were read.
 */
export const LOCK_IF_STILL_UNSENT = `
SELECT m.id FROM messages m
WHERE m.id = $1 AND m.status = 'queued' AND NOT EXISTS (${reachedCarrier("m.id")})
FOR UPDATE OF m`;

function reachedCarrier(messageId: string): string {
  return `SELECT 1 FROM message_segments s WHERE s.message_id = ${messageId}
          AND (s.carrier_message_id IS NOT NULL OR s.status IN ('submitting', 'submitted', 'delivered'))`;
}
