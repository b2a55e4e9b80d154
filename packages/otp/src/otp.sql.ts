import type pg from "pg";

export type OtpStatus = "pending" | "verified" | "expired" | "failed" | "canceled";

export interface OtpRecord {
  id: string;
  phone: string;
  length: number;
  status: OtpStatus;
  attempts: number;
  maxAttempts: number;
  messageId: string;
  expiresAt: Date;
  verifiedAt: Date | null;
  createdAt: Date;
}

/** An OTP of one account (tenant isolation: another account's id reads as absent). */
export async function findOtp(
  pool: pg.Pool,
  accountId: string,
  otpId: string,
): Promise<OtpRecord | undefined> {
  const { rows } = await pool.query({
    name: "otp-find",
    text: `SELECT id, phone, length, status, attempts, max_attempts, message_id, expires_at, verified_at, created_at
           FROM otps WHERE id = $1 AND account_id = $2`,
    values: [otpId, accountId],
  });
  const row = rows[0];
  return row
    ? {
        id: row.id,
        phone: row.phone,
        length: row.length,
        status: row.status,
        attempts: row.attempts,
        maxAttempts: row.max_attempts,
        messageId: row.message_id,
        expiresAt: row.expires_at,
        verifiedAt: row.verified_at,
        createdAt: row.created_at,
      }
    : undefined;
}

/**
 * One guess, counted and judged by ONE statement. Under READ COMMITTED, concurrent
 * UPDATEs of the row queue on its lock and each re-checks the WHERE clause against the
 * version the previous one committed, so of N parallel guesses at most max_attempts
 * are counted and at most one approves (a single use).
 *
 * The HMACs are compared blinded: sha256(x || nonce) on both sides with a fresh random
 * nonce per call, so however `=` on bytea exits early, its timing says nothing about the
 * stored HMAC (the double-hash form of a constant-time comparison).
 */
const CHECK_CODE = `
UPDATE otps AS o SET
  attempts = o.attempts + 1,
  status = (CASE
    WHEN sha256(o.code_hmac || $4::bytea) = sha256($3::bytea || $4::bytea) THEN 'verified'
    WHEN o.attempts + 1 >= o.max_attempts THEN 'failed'
    ELSE 'pending' END)::"OtpStatus",
  verified_at = CASE WHEN sha256(o.code_hmac || $4::bytea) = sha256($3::bytea || $4::bytea) THEN now() END,
  updated_at = now()
WHERE o.id = $1 AND o.account_id = $2 AND o.status = 'pending' AND o.expires_at > now()
  AND o.attempts < o.max_attempts
RETURNING o.status, o.attempts, o.max_attempts`;

/** Counts one guess; undefined when the OTP was not open to guesses (any more). */
export async function checkCode(
  pool: pg.Pool,
  accountId: string,
  otpId: string,
  codeHmac: Buffer,
  nonce: Buffer,
): Promise<{ status: OtpStatus; attempts: number; maxAttempts: number } | undefined> {
  const { rows } = await pool.query({
    name: "otp-check-code",
    text: CHECK_CODE,
    values: [otpId, accountId, codeHmac, nonce],
  });
  const row = rows[0];
  return row ? { status: row.status, attempts: row.attempts, maxAttempts: row.max_attempts } : undefined;
}

/** pending → expired for OTPs past their expiry (oldest first, at most `limit`); returns their ids. */
export async function expireDueOtps(pool: pg.Pool, limit = 1000): Promise<string[]> {
  const { rows } = await pool.query({
    name: "otp-expire-due",
    text: `UPDATE otps SET status = 'expired', updated_at = now()
           WHERE id IN (SELECT id FROM otps WHERE status = 'pending' AND expires_at <= now()
                        ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
             AND status = 'pending'
           RETURNING id`,
    values: [limit],
  });
  return rows.map((r: { id: string }) => r.id);
}
