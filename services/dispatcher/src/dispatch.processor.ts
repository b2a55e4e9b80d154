import type pg from "pg";
import type { Logger } from "@sms/logger";
import { openOtpText } from "@sms/otp";
import type { CarrierBudget } from "@sms/rate-limit";
import type { SecretBox } from "@sms/secret-box";
import { splitMessage } from "@sms/sms-encoding";
import type { CarrierPool } from "./carrier-pool";
import type { CarrierHealth } from "./carrier-health";
import { canCarry, type Gsm7Encoding } from "./carrier-encoding";
import type { Batcher } from "@sms/db";
import { expiryReason } from "@sms/message-state";
import {
  failMessage,
  failUnanswered,
  markSent,
  type LoadedMessage,
  type SubmitRecord,
  type SubmittingMark,
} from "./segments.sql";
import { RetryLater } from "./retry-later";
import { submitOnFirstCarrier } from "./submit-carriers";
import { concatReference } from "./submit-pdu";

export interface DispatchContext {
  pool: pg.Pool;
  carriers: CarrierPool;
  /** Each carrier's submits per second, shared by every replica, with room kept for the high class. */
  carrierBudget: CarrierBudget;
  logger: Logger;
  /** Opens the sealed texts of OTP messages (SECRET_ENCRYPTION_KEY). */
  box: SecretBox;
  /** Throttled/temporary answers retried on the spot before the next route is tried. */
  retryLimit: number;
  /** Breakers and back-off per carrier (carrier-health.ts). */
  health: CarrierHealth;
  /** Submits of one segment with no answer (fate unknown) before its message fails CARRIER_TIMEOUT. */
  maxUnansweredSubmits: number;
  /** Counts a submit accepted without a message_id. */
  onAcceptedWithoutId?: (carrierId: string) => void;
  /** Group-committed writes (see Batcher); a mark answers false when the message is no longer queued. */
  marks: Batcher<SubmittingMark, boolean>;
  records: Batcher<SubmitRecord>;
}

export { RetryLater } from "./retry-later";

/**
 * A message's turn in its account's pace: its first submit of the job is not written at or
 * after `notAfter` (the end of the second it was booked in), so it cannot land in a second
 * that another job's share already fills. Once one of its submits is written it has gone out
 * in its second and the rest follow (`notAfter` becomes Infinity).
 */
export interface PaceTurn {
  notAfter: number;
  /**
   * Once `notAfter` has passed unwritten: takes a place in the current second if the account has
   * one left (moving `notAfter` to its end) and answers whether it did. Without it, or when the
   * account has none, the turn is missed and the message is booked again by a new job.
   */
  renew?: () => Promise<boolean>;
}

/**
 * Sends one queued message (loaded by its batch; its account's pace already taken): every
 * segment not yet with a carrier is submitted, on the first carrier of its route that is up
 * and takes it. Idempotent: a segment the carrier accepted is never submitted again; one left
 * 'submitting' by a crash (its outcome unknown) is submitted again — the only duplicates we
 * allow. Throws RetryLater when it should be tried again later; "missed_turn" when its pace
 * turn ended before anything of it was written: it must be paced again.
 */
export async function dispatchMessage(
  ctx: DispatchContext,
  message: LoadedMessage,
  turn: PaceTurn = { notAfter: Infinity },
): Promise<"sent" | "failed" | "skipped" | "missed_turn"> {
  if (message.status !== "queued") return "skipped";
  // Its validity ended while it waited (throttled, deferred, retried): it must not go out now.
  // Credits come back unless a part is already with a carrier (docs/messages.md#validity).
  if (message.expired) {
    const reason = expiryReason(message.otpId);
    await failMessage(ctx.pool, message.id, null, reason.errorCode, reason.errorMessage);
    return "failed";
  }
  // An OTP message stores a redacted body; the text to send is sealed beside it.
  const text = message.otpId
    ? message.bodySealed && openOtpText(ctx.box, message.otpId, message.bodySealed)
    : message.body;
  if (!text) {
    await failMessage(ctx.pool, message.id, null, "TEXT_UNAVAILABLE", "The sealed OTP text is gone.");
    return "failed";
  }
  const parts = splitMessage(text, { reference: concatReference(message.id) });
  const known = new Map(message.segments.map((s) => [s.seq, s]));
  const todo = parts
    .map((_, i) => i + 1)
    .filter((seq) => {
      const status = known.get(seq)?.status;
      return status === undefined || status === "pending" || status === "submitting";
    });
  if (message.segments.some((s) => s.status === "failed")) {
    await failMessage(ctx.pool, message.id, null, "SEGMENT_FAILED", "A segment failed for good.");
    return "failed";
  }
  // A segment still 'submitting' went out last time with no answer: one more unknown fate.
  // The count is the segment's, persisted: no job, reconciler cycle or restart starts it over.
  for (const segment of message.segments) {
    const unanswered = segment.unanswered + (segment.status === "submitting" ? 1 : 0);
    if (unanswered >= ctx.maxUnansweredSubmits) {
      await failUnanswered(ctx.pool, message.id, segment.seq, unanswered);
      return "failed";
    }
  }
  if (todo.length > 0) {
    // Parts of one message stay on one carrier once any part was accepted (concatenation),
    // and a part whose fate is unknown stays on its carrier: resent there, never failed over
    // (another carrier would deliver a second copy of what the first may have sent).
    const withCarrier = message.segments.find(
      (s) =>
        s.status === "submitted" ||
        s.status === "delivered" ||
        ((s.status === "submitting" || s.unanswered > 0) && s.carrierId !== null),
    );
    let candidates = ctx.carriers.candidates(message.to);
    if (withCarrier?.carrierId) candidates = candidates.filter((c) => c.id === withCarrier.carrierId);
    if (candidates.length === 0) {
      if (withCarrier)
        throw new RetryLater(`carrier ${withCarrier.carrierId} of the accepted parts is not configured`);
      await failMessage(ctx.pool, message.id, null, "NO_ROUTE", `No carrier route covers ${message.to}.`);
      return "failed";
    }
    // A carrier whose data_coding 0 is Latin-1 cannot carry Greek capitals or € in the parts we charged for.
    candidates = candidates.filter((c) => canCarry(parts, c.gsm7Encoding as Gsm7Encoding));
    if (candidates.length === 0) {
      await failMessage(
        ctx.pool,
        message.id,
        null,
        "ENCODING_UNSUPPORTED",
        "No carrier on the route can carry this text in its data_coding 0 alphabet.",
      );
      return "failed";
    }
    // The last segment's record also moves the message to sent, in the same transaction.
    const result = await submitOnFirstCarrier(
      ctx,
      candidates,
      message,
      parts,
      todo,
      Boolean(withCarrier),
      turn,
    );
    if (result === "skipped" && message.expiresAt && message.expiresAt.getTime() <= Date.now()) {
      // No segment is marked for the wire once the validity ends, and it can end during this
      // job (a carrier's back-off): fail it now, as the next try would, rather than leave it
      // queued for the sweep. One a sweep or a cancel already ended stays as it is.
      const reason = expiryReason(message.otpId);
      await failMessage(ctx.pool, message.id, null, reason.errorCode, reason.errorMessage);
      return "failed";
    }
    return result === "done" ? "sent" : result;
  }
  await markSent(ctx.pool, message.id);
  return "sent";
}
