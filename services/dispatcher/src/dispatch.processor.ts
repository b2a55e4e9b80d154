import type pg from "pg";
import type { Logger } from "@sms/logger";
import { openOtpText } from "@sms/otp";
import type { RateLimiter } from "@sms/rate-limit";
import type { SecretBox } from "@sms/secret-box";
import { splitMessage, type SmsPart } from "@sms/sms-encoding";
import { describeStatus, isOutcomeUnknown, NotBoundError } from "@sms/smpp";
import type { CarrierPool, CarrierRow } from "./carrier-pool";
import { canCarry, encodeForCarrier, type Gsm7Encoding } from "./carrier-encoding";
import type { Batcher } from "@sms/db";
import { expiryReason } from "@sms/message-state";
import { receiptKeyForSubmit, type ReceiptIdForm } from "@sms/receipts";
import {
  failMessage,
  failUnanswered,
  markNotSent,
  markSent,
  type DispatchMessage,
  type LoadedMessage,
  type SubmitRecord,
  type SubmittingMark,
} from "./segments.sql";
import { classifySubmitStatus } from "./submit-outcome";
import { buildSubmitSm, concatReference } from "./submit-pdu";

export interface DispatchContext {
  pool: pg.Pool;
  carriers: CarrierPool;
  limiter: RateLimiter;
  logger: Logger;
  /** Opens the sealed texts of OTP messages (SECRET_ENCRYPTION_KEY). */
  box: SecretBox;
  /** Throttled/temporary answers retried on the spot before the job is retried later. */
  retryLimit: number;
  /** First back-off after a throttled answer, doubled each time. */
  backoffMs: number;
  /** Submits of one segment with no answer (fate unknown) before its message fails CARRIER_TIMEOUT. */
  maxUnansweredSubmits: number;
  /** Counts a submit accepted without a message_id. */
  onAcceptedWithoutId?: (carrierId: string) => void;
  /** Group-committed writes (see Batcher); a mark answers false when the message is no longer queued. */
  marks: Batcher<SubmittingMark, boolean>;
  records: Batcher<SubmitRecord>;
}

/** A message's class in a carrier window's queue of submits (RequestWindow: weighted 6 : 3 : 1). */
const WINDOW_CLASS = { high: 0, normal: 1, bulk: 2 } as const;

/** Thrown to have the message tried again later (a delayed job with a growing back-off). */
export class RetryLater extends Error {
  override readonly name = "RetryLater";
}

type SegmentOutcome =
  | { kind: "accepted" }
  | { kind: "carrier-down" }
  | { kind: "route-refused"; errorCode: string }
  | { kind: "permanent"; errorCode: string; errorMessage: string }
  | { kind: "retry"; reason: string }
  | { kind: "no-longer-queued" };

/**
 * Sends one queued message (loaded by its batch; its account's pace already taken): every
 * segment not yet with a carrier is submitted, on the first carrier of its route that is up
 * and takes it. Idempotent: a segment the carrier accepted is never submitted again; one left
 * 'submitting' by a crash (its outcome unknown) is submitted again — the only duplicates we
 * allow. Throws RetryLater when it should be tried again later.
 */
export async function dispatchMessage(
  ctx: DispatchContext,
  message: LoadedMessage,
): Promise<"sent" | "failed" | "skipped"> {
  if (message.status !== "queued") return "skipped";
  // Its validity ended while it waited (throttled, deferred, retried): it must not go out now.
  // Credits come back unless a part is already with a carrier (DESIGN §12).
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
    const result = await submitOnFirstCarrier(ctx, candidates, message, parts, todo, Boolean(withCarrier));
    return result === "done" ? "sent" : result;
  }
  await markSent(ctx.pool, message.id);
  return "sent";
}

async function submitOnFirstCarrier(
  ctx: DispatchContext,
  candidates: CarrierRow[],
  message: DispatchMessage,
  parts: SmsPart[],
  seqs: number[],
  partlyAccepted: boolean,
): Promise<"done" | "failed" | "skipped"> {
  let refusal: { errorCode: string } | undefined;
  for (const carrier of candidates) {
    let acceptedHere = partlyAccepted;
    let moveOn = false;
    for (const seq of seqs) {
      const outcome = await submitSegment(
        ctx,
        carrier,
        message,
        parts[seq - 1]!,
        seq,
        seq === seqs[seqs.length - 1],
      );
      if (outcome.kind === "accepted") {
        acceptedHere = true;
        continue;
      }
      // Failed or canceled since we read it (e.g. the OTP sweep): nothing more goes out.
      if (outcome.kind === "no-longer-queued") return "skipped";
      if (outcome.kind === "permanent") {
        await failMessage(ctx.pool, message.id, seq, outcome.errorCode, outcome.errorMessage);
        return "failed";
      }
      if (outcome.kind === "retry" || acceptedHere)
        throw new RetryLater(
          outcome.kind === "retry" ? outcome.reason : `carrier ${carrier.id}: ${outcome.kind}`,
        );
      // Nothing of this message is with this carrier: fail over to the next one.
      if (outcome.kind === "route-refused") refusal = outcome;
      ctx.logger.info("failing over", { message_id: message.id, carrier: carrier.id, reason: outcome.kind });
      moveOn = true;
      break;
    }
    if (!moveOn) return "done";
  }
  if (refusal) {
    await failMessage(
      ctx.pool,
      message.id,
      null,
      refusal.errorCode,
      "Every carrier on the route refused the destination.",
    );
    return "failed";
  }
  throw new RetryLater("no carrier on the route is bound");
}

async function submitSegment(
  ctx: DispatchContext,
  carrier: CarrierRow,
  message: DispatchMessage,
  part: SmsPart,
  seq: number,
  completesMessage: boolean,
): Promise<SegmentOutcome> {
  let busyAnswers = 0;
  let temporaryAnswers = 0;
  for (let notBound = 0; notBound < 3;) {
    const client = ctx.carriers.clientFor(carrier.id);
    if (!client) return { kind: "carrier-down" };
    await waitForCapacity(ctx.limiter, `carrier:${carrier.id}`, carrier.submitsPerSecond);
    // Refused once the message left queued: the mark and that check are one statement,
    // under a share lock of the message row, so a sweep failing it cannot slip between.
    if (!(await ctx.marks.add({ messageId: message.id, seq, carrierId: carrier.id })))
      return { kind: "no-longer-queued" };
    let status: number;
    let carrierMessageId: string | undefined;
    try {
      const pdu = buildSubmitSm(message, encodeForCarrier(part, carrier.gsm7Encoding as Gsm7Encoding));
      const response = await client.submit(pdu, WINDOW_CLASS[message.priority]);
      status = response.command_status;
      carrierMessageId = response.message_id;
    } catch (error) {
      if (error instanceof NotBoundError) {
        notBound++;
        await markNotSent(ctx.pool, message.id, seq);
        continue;
      }
      // Timed out or the connection dropped with the submit on the wire: the segment stays
      // 'submitting' and the retried job submits it again (a possible duplicate, by design).
      if (isOutcomeUnknown(error)) return { kind: "retry", reason: (error as Error).message };
      throw error;
    }
    const verdict = classifySubmitStatus(status);
    if (verdict.kind === "accepted") {
      // Accepted is accepted: without an id it is sent all the same; no receipt can match it,
      // and the receipt timeout (docs/decisions.md#delivery-truth-issue-17) ends it.
      const id = carrierMessageId?.trim() || null;
      if (!id) ctx.onAcceptedWithoutId?.(carrier.id);
      await ctx.records.add({
        messageId: message.id,
        seq,
        carrierId: carrier.id,
        carrierMessageId: id,
        receiptKey: id === null ? null : receiptKeyForSubmit(id, carrier.receiptIdForm as ReceiptIdForm),
        completesMessage,
      });
      return { kind: "accepted" };
    }
    await markNotSent(ctx.pool, message.id, seq);
    if (verdict.kind === "route-refused") return verdict;
    if (verdict.kind === "permanent")
      return { ...verdict, errorMessage: `The carrier refused the segment: ${describeStatus(status)}.` };
    const tries = verdict.kind === "busy" ? ++busyAnswers : ++temporaryAnswers;
    if (tries > ctx.retryLimit)
      return {
        kind: "retry",
        reason: `carrier ${carrier.id} answered ${describeStatus(status)} ${tries} times`,
      };
    await sleep(Math.min(ctx.backoffMs * 2 ** (tries - 1), 5000) * (0.8 + Math.random() * 0.4));
  }
  return { kind: "carrier-down" };
}

/** Waits until the shared per-second budget of `key` (all dispatcher replicas) has room. */
async function waitForCapacity(limiter: RateLimiter, key: string, perSecond: number): Promise<void> {
  for (;;) {
    const decision = await limiter.check(key, { requestsPerSecond: perSecond });
    if (decision.allowed) return;
    const untilReset = decision.resetEpochSeconds * 1000 - Date.now();
    await sleep(Math.max(5, Math.min(untilReset, 1000)) + Math.random() * 20);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
