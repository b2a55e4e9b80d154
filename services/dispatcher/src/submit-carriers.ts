import type { CarrierBudget, SubmitClass } from "@sms/rate-limit";
import type { SmsPart } from "@sms/sms-encoding";
import {
  describeStatus,
  isOutcomeUnknown,
  NotBoundError,
  ResponseTimeoutError,
  TurnMissedError,
} from "@sms/smpp";
import { receiptKeyForSubmit, type ReceiptIdForm } from "@sms/carrier-receipts";
import type { CarrierRow } from "./carrier-pool";
import type { Admission } from "./carrier-health";
import { encodeForCarrier, type Gsm7Encoding } from "./carrier-encoding";
import type { DispatchContext, PaceTurn } from "./dispatch.processor";
import { RetryLater } from "./retry-later";
import { failMessage, markNotSent, type DispatchMessage } from "./segments.sql";
import { classifySubmitStatus, healthResult } from "./submit-outcome";
import { buildSubmitSm } from "./submit-pdu";

/** A message's class in a carrier window's queue of submits (RequestWindow: weighted 6 : 3 : 1). */
const WINDOW_CLASS = { high: 0, normal: 1, bulk: 2 } as const;

type SegmentOutcome =
  | { kind: "accepted" }
  /** Not bound, or answering errors (throttled, temporary) past the retries, or its breaker opened: nothing accepted. */
  | { kind: "carrier-trouble"; reason: string }
  | { kind: "route-refused"; errorCode: string }
  | { kind: "permanent"; errorCode: string; errorMessage: string }
  /** Submitted with no answer: fate unknown, the message stays on this carrier. */
  | { kind: "unknown"; reason: string }
  | { kind: "no-longer-queued" }
  /** Its pace turn ended before it was written: nothing went out. */
  | { kind: "turn-missed" };

/**
 * Submits the segments `seqs` on the first candidate that takes them all. Moves on to the next
 * candidate only while no part of the message is with the current one (accepted, or fate
 * unknown: docs/decisions.md#unknown-fate): when its breaker is open, when it is not bound, when it
 * refuses the route (a destination refusal or a route-specific permanent error), or when it keeps
 * answering throttled or temporary errors. A refusal no later carrier turned into an acceptance
 * fails the message; carrier trouble everywhere has it retried later.
 */
export async function submitOnFirstCarrier(
  ctx: DispatchContext,
  candidates: CarrierRow[],
  message: DispatchMessage,
  parts: SmsPart[],
  seqs: number[],
  partlyAccepted: boolean,
  turn: PaceTurn,
): Promise<"done" | "failed" | "skipped" | "missed_turn"> {
  let refusal: { errorCode: string } | undefined;
  const troubles: string[] = [];
  for (const carrier of candidates) {
    const admission = await ctx.health.admit(carrier.id);
    if (!admission) {
      troubles.push(`carrier ${carrier.id}'s breaker is open`);
      continue;
    }
    // A probe that sent nothing gives its permit back (CarrierHealth.release).
    try {
      let acceptedHere = partlyAccepted;
      let moveOn = false;
      for (const seq of seqs) {
        const last = seq === seqs[seqs.length - 1];
        const outcome = await submitSegment(
          ctx,
          carrier,
          admission,
          message,
          parts[seq - 1]!,
          seq,
          last,
          turn,
        );
        if (outcome.kind === "accepted") {
          acceptedHere = true;
          continue;
        }
        // Failed or canceled since we read it (e.g. the OTP sweep): nothing more goes out.
        if (outcome.kind === "no-longer-queued") return "skipped";
        if (outcome.kind === "turn-missed") return "missed_turn";
        if (outcome.kind === "unknown") throw new RetryLater(outcome.reason);
        const permanent =
          outcome.kind === "permanent"
            ? outcome
            : acceptedHere && outcome.kind === "route-refused"
              ? outcome
              : null;
        if (permanent) {
          // Parts already with this carrier keep the rest here: no other route may take them.
          const errorMessage =
            "errorMessage" in permanent
              ? permanent.errorMessage
              : "The carrier of the other parts refused this one.";
          await failMessage(ctx.pool, message.id, seq, permanent.errorCode, errorMessage);
          return "failed";
        }
        if (acceptedHere) throw new RetryLater(`carrier ${carrier.id}: ${describe(outcome)}`);
        // Nothing of this message is with this carrier: fail over to the next one.
        if (outcome.kind === "route-refused") refusal = outcome;
        else troubles.push(describe(outcome));
        ctx.logger.info("failing over", {
          message_id: message.id,
          carrier: carrier.id,
          reason: describe(outcome),
        });
        moveOn = true;
        break;
      }
      if (!moveOn) return "done";
    } finally {
      ctx.health.release(admission);
    }
  }
  if (refusal) {
    await failMessage(
      ctx.pool,
      message.id,
      null,
      refusal.errorCode,
      "Every carrier on the route that could be tried refused the message.",
    );
    return "failed";
  }
  throw new RetryLater(troubles.join("; ") || "no carrier on the route is bound");
}

function describe(outcome: SegmentOutcome): string {
  if (outcome.kind === "carrier-trouble") return outcome.reason;
  return "errorCode" in outcome ? outcome.errorCode : outcome.kind;
}

async function submitSegment(
  ctx: DispatchContext,
  carrier: CarrierRow,
  admission: Admission,
  message: DispatchMessage,
  part: SmsPart,
  seq: number,
  completesMessage: boolean,
  turn: PaceTurn,
): Promise<SegmentOutcome> {
  let errorAnswers = 0;
  // Set while this segment holds its mark from an attempt whose turn ended unwritten and was
  // renewed: marked again, it would count as a submit that went unanswered.
  let marked = false;
  const renewedAfterItEnded = async (): Promise<boolean> =>
    Date.now() >= turn.notAfter && (await renewTurn(turn));
  for (let notBound = 0; notBound < 3;) {
    await ctx.health.backoff.wait(carrier.id);
    if (!(await waitForCapacity(ctx.carrierBudget, carrier, message.priority, turn.notAfter))) {
      // No room at the carrier before the turn ends: a renewed turn would take the account's
      // room for that carrier's full second. Only a turn that ran out while it waited goes on.
      if (await renewedAfterItEnded()) continue;
      if (marked) await markNotSent(ctx.pool, message.id, seq);
      return { kind: "turn-missed" };
    }
    // Checked after the waits: the back-off after an error is when the breaker opens, and a
    // retry that read it before waiting went to an open carrier.
    if (breakerOpened(ctx, carrier, admission))
      return { kind: "carrier-trouble", reason: `carrier ${carrier.id}'s breaker opened` };
    const client = ctx.carriers.clientFor(carrier.id);
    if (!client) return { kind: "carrier-trouble", reason: `carrier ${carrier.id} is not bound` };
    // The waits above (back-off, the carrier's rate) can outlast the turn: no mark for nothing.
    if (Date.now() >= turn.notAfter) {
      if (await renewedAfterItEnded()) continue;
      if (marked) await markNotSent(ctx.pool, message.id, seq);
      return { kind: "turn-missed" };
    }
    // Refused once the message left queued: the mark and that check are one statement,
    // under a share lock of the message row, so a sweep failing it cannot slip between.
    if (!marked && !(await ctx.marks.add({ messageId: message.id, seq, carrierId: carrier.id })))
      return { kind: "no-longer-queued" };
    marked = true;
    // And again just before the wire: the mark waits for its batch and a database round trip,
    // and on a loaded machine the breaker opened during it (a CI run sent 9 submits that way).
    if (breakerOpened(ctx, carrier, admission)) {
      await markNotSent(ctx.pool, message.id, seq);
      return { kind: "carrier-trouble", reason: `carrier ${carrier.id}'s breaker opened` };
    }
    let status: number;
    let carrierMessageId: string | undefined;
    try {
      const pdu = buildSubmitSm(message, encodeForCarrier(part, carrier.gsm7Encoding as Gsm7Encoding));
      // The mark's database round trip and a full window can outlast the turn too: the
      // connection checks it again as the PDU is written.
      const response = await client.submit(pdu, WINDOW_CLASS[message.priority], turn.notAfter);
      turn.notAfter = Infinity;
      status = response.command_status;
      carrierMessageId = response.message_id;
    } catch (error) {
      if (error instanceof TurnMissedError) {
        // Nothing was written: with a place in the account's current second it goes on, still
        // marked (the common case at full speed, where a batch's marks straddle a second's end).
        if (await renewTurn(turn)) continue;
        await markNotSent(ctx.pool, message.id, seq);
        return { kind: "turn-missed" };
      }
      if (error instanceof NotBoundError) {
        notBound++;
        marked = false;
        await markNotSent(ctx.pool, message.id, seq);
        continue;
      }
      // Timed out or the connection dropped with the submit on the wire: the segment stays
      // 'submitting' and the retried job submits it again, to this carrier only (a possible
      // duplicate, by design; never a copy on a second carrier).
      if (isOutcomeUnknown(error)) {
        turn.notAfter = Infinity;
        ctx.health.record(admission, error instanceof ResponseTimeoutError ? "unanswered" : "lost");
        return { kind: "unknown", reason: (error as Error).message };
      }
      throw error;
    }
    const verdict = classifySubmitStatus(status);
    ctx.health.record(admission, healthResult(verdict));
    if (verdict.kind === "accepted") {
      // Accepted is accepted: without an id it is sent all the same; no receipt can match it,
      // and the receipt timeout ends it (docs/messages.md#validity).
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
    marked = false;
    await markNotSent(ctx.pool, message.id, seq);
    if (verdict.kind === "route-refused") return verdict;
    if (verdict.kind === "permanent")
      return { ...verdict, errorMessage: `The carrier refused the segment: ${describeStatus(status)}.` };
    // Throttled or temporary: the carrier's back-off (every submit to it waits), then again here,
    // unless this was a probe (its failure reopened the breaker) or the retries are used up.
    errorAnswers++;
    if (admission.probe !== null || errorAnswers > ctx.retryLimit)
      return {
        kind: "carrier-trouble",
        reason: `carrier ${carrier.id} answered ${describeStatus(status)} ${errorAnswers} times`,
      };
  }
  return { kind: "carrier-trouble", reason: `carrier ${carrier.id} is not bound` };
}

function renewTurn(turn: PaceTurn): Promise<boolean> {
  return turn.renew ? turn.renew() : Promise.resolve(false);
}

/** An earlier segment's trouble may have opened the breaker since admission; a probe goes on (it is the test). */
function breakerOpened(ctx: DispatchContext, carrier: CarrierRow, admission: Admission): boolean {
  return admission.probe === null && ctx.health.state(carrier.id) === "open";
}

/**
 * Waits until the carrier's shared per-second room (all dispatcher replicas) has room for a
 * submit of `cls` (high-class submits have a share kept for them: docs/fairness.md); false,
 * without taking any, once the room would come at or after `notAfter` (the message's turn). A
 * message that waited past its turn and then took a carrier's room wasted it: with a carrier
 * slower than the account, the messages of ended turns took every second's room and the current
 * turns found none: after the first second, about one message in ten seconds went out.
 */
async function waitForCapacity(
  budget: CarrierBudget,
  carrier: CarrierRow,
  cls: SubmitClass,
  notAfter: number,
): Promise<boolean> {
  for (;;) {
    if (Date.now() >= notAfter) return false;
    const decision = await budget.take(carrier.id, carrier.submitsPerSecond, cls);
    if (decision.allowed) return true;
    const resetAt = decision.resetEpochSeconds * 1000;
    if (resetAt >= notAfter) return false;
    await sleep(Math.max(5, Math.min(resetAt - Date.now(), 1000)) + Math.random() * 20);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
