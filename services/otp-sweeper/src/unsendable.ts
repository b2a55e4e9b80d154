import type pg from "pg";
import { inTransaction } from "@sms/db";
import { applyTransition, dueByIdBound, waitingSinceIdBound } from "@sms/message-state";
import type { OtpStatus } from "@sms/otp";
import { LOCK_QUEUED_MESSAGE, NOTHING_REACHED_CARRIER, UNSENDABLE_OTP_MESSAGES } from "./unsendable.sql";

/**
 * Why an OTP's SMS was failed, by the OTP's status. The codes are the ones the API
 * answers a verify of such an OTP with (@sms/errors), so a message log and a verify agree;
 * a replaced OTP is OTP_EXPIRED there too (docs/otp.md#verify).
 */
const REASONS: Record<Exclude<OtpStatus, "pending">, { errorCode: string; errorMessage: string }> = {
  expired: { errorCode: "OTP_EXPIRED", errorMessage: "The OTP expired before its SMS reached a carrier." },
  canceled: {
    errorCode: "OTP_EXPIRED",
    errorMessage: "A newer OTP for the same phone replaced this one before its SMS reached a carrier.",
  },
  failed: {
    errorCode: "OTP_MAX_ATTEMPTS",
    errorMessage: "The OTP was locked by too many wrong codes before its SMS reached a carrier.",
  },
  verified: {
    errorCode: "OTP_ALREADY_VERIFIED",
    errorMessage: "The OTP was verified before its SMS reached a carrier.",
  },
};

export interface FailedOtpMessage {
  messageId: string;
  otpId: string;
  errorCode: string;
  refundedCredits: number;
}

/**
 * Fails (at most `limit`) queued SMS of OTPs that can no longer be verified, so a dead
 * code is never sent late (a carrier outage, a backlog). Through the state machine: a
 * `message.failed` event, the credits returned, `body_sealed` wiped.
 * Never one the dispatcher has started to send: see LOCK_QUEUED_MESSAGE.
 */
export async function failUnsendableOtpMessages(pool: pg.Pool, limit: number): Promise<FailedOtpMessage[]> {
  // Unnamed: its plan is made for the bounds of the weeks it reads.
  const { rows } = await pool.query<{ message_id: string; otp_id: string; otp_status: OtpStatus }>(
    UNSENDABLE_OTP_MESSAGES,
    [limit, waitingSinceIdBound(), dueByIdBound()],
  );
  const failed: FailedOtpMessage[] = [];
  for (const row of rows) {
    const reason = REASONS[row.otp_status as Exclude<OtpStatus, "pending">] ?? REASONS.expired;
    const result = await inTransaction(pool, async (client) => {
      // This and the next: unnamed, so each plan is made for its message's week
      // (docs/decisions.md#partitions).
      const locked = await client.query({
        text: LOCK_QUEUED_MESSAGE,
        values: [row.message_id],
      });
      if (!locked.rowCount) return undefined; // no longer queued since the read
      const { rows: check } = await client.query<{ unsent: boolean }>({
        text: NOTHING_REACHED_CARRIER,
        values: [row.message_id],
      });
      if (!check[0]?.unsent) return undefined; // on its way to the carrier: leave it to the dispatcher
      return applyTransition(client, { messageId: row.message_id, to: "failed", at: new Date(), ...reason });
    });
    if (result?.applied)
      failed.push({
        messageId: row.message_id,
        otpId: row.otp_id,
        errorCode: reason.errorCode,
        refundedCredits: result.refundedCredits,
      });
  }
  return failed;
}
