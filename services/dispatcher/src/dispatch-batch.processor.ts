import type { DispatchEntry, DispatchJob, DispatchProducer, Job, Priority } from "@sms/queues";
import type { Pacer } from "@sms/rate-limit";
import type { AccountRates } from "./account-rates";
import { dispatchMessage, RetryLater, type DispatchContext, type PaceTurn } from "./dispatch.processor";
import { loadMessages, type LoadedMessage } from "./segments.sql";

export interface BatchContext extends DispatchContext {
  /** Hands deferred and retried messages on as new (delayed) jobs. */
  producer: DispatchProducer;
  /** Each account's messages/s, shared by every dispatcher replica. */
  pacer: Pacer;
  accountRates: AccountRates;
  /** How long this job's claims last past its start; renewed when it hands messages on. */
  claimTtlMs: number;
  /** Tries of one message that end in "retry later" before it is left to the reconciler. */
  maxAttempts: number;
  /** Wait before the first retry, doubled each time (capped at 5 minutes). */
  retryBaseMs: number;
}

export interface BatchOutcome {
  sent: number;
  failed: number;
  skipped: number;
  /** Handed on to a later job: their account's pace comes later. */
  deferred: number;
  /** Handed on to a later job: "retry later" (carrier down, throttled, outcome unknown). */
  retried: number;
  /** Handed on to a job that books them again: their second ended before they were written. */
  missed_turn: number;
}

/**
 * One dispatch job: a batch of one account's queued messages of one class.
 *
 * 1. Claim the messages for this job (another live job holding one keeps it: no message is
 *    ever dispatched by two jobs at once).
 * 2. Take their place in the account's pace (docs/fairness.md): what may go now is dispatched
 *    now; the rest is handed on, unread, as delayed jobs that wake when their second comes. A
 *    throttled account's messages wait in Redis, never in a worker slot.
 * 3. Load the ones due now in one read; those no longer queued are done.
 * 4. Dispatch the messages concurrently; those that must be retried are handed on as one
 *    delayed job with a growing back-off, and those whose second ended before their submit was
 *    written as one job that paces them again.
 *
 * Interrupted halfway (a crash, SIGTERM past its bound) the job is taken over with the same id
 * and claims: messages already sent are no longer queued and are skipped; the rest are done once.
 */
export async function dispatchBatch(
  ctx: BatchContext,
  job: Job<DispatchJob>,
  priority: Priority,
): Promise<BatchOutcome> {
  const jobId = job.id!;
  const { messageIds, accountId, attempt, paced } = job.data;
  const outcome: BatchOutcome = { sent: 0, failed: 0, skipped: 0, deferred: 0, retried: 0, missed_turn: 0 };
  const claimed = await ctx.producer.claims.claim(jobId, messageIds, ctx.claimTtlMs);
  const mine = messageIds.filter((_, i) => claimed[i]);
  outcome.skipped += messageIds.length - mine.length;
  if (mine.length === 0) return outcome;

  // The pace first, the read after: a turn that comes later is handed on unread, so a throttled
  // campaign's jobs cost Redis calls, not database reads, until their second comes.
  const pace = async (ids: string[]): Promise<{ due: string[]; until: number }> => {
    const turns = await ctx.pacer.reserve(
      `mps:${accountId}`,
      ids.length,
      await ctx.accountRates.get(accountId),
    );
    const due: string[] = [];
    let until = 0;
    let offset = 0;
    for (const turn of turns) {
      const turnIds = ids.slice(offset, (offset += turn.count));
      const secondEnd = Math.floor(turn.atMs / 1000) * 1000 + 1000;
      // Only a turn in the current second goes now: one dispatched a little early would land in a full second.
      if (turn.waitMs === 0) {
        due.push(...turnIds);
        until = secondEnd;
      } else {
        await ctx.producer.enqueue(
          turnIds.map((messageId) => ({ messageId, accountId, priority })),
          { delayMs: turn.waitMs, paced: true, pacedUntil: secondEnd, attempt, from: jobId },
        );
        outcome.deferred += turnIds.length;
      }
    }
    return { due, until };
  };
  const late = (until: number | undefined) => until !== undefined && Date.now() >= until;

  const first =
    paced && !late(job.data.pacedUntil) ? { due: mine, until: job.data.pacedUntil } : await pace(mine);
  let { due: dueNow, until } = first;
  if (dueNow.length === 0) return outcome;

  let loaded = await loadMessages(ctx.pool, dueNow);
  // Their second ended while they were read (a loaded machine): they go in a second of their own.
  if (late(until)) {
    const read = new Map(dueNow.map((id, i) => [id, loaded[i]]));
    ({ due: dueNow, until } = await pace(dueNow));
    if (dueNow.length === 0) return outcome;
    loaded = dueNow.map((id) => read.get(id));
  }
  const now = loaded.filter((m): m is LoadedMessage => m?.status === "queued");
  const finished = dueNow.filter((_, i) => loaded[i]?.status !== "queued");
  outcome.skipped += finished.length;

  const results = await Promise.allSettled(
    now.map((message) => dispatchMessage(ctx, message, renewableTurn(ctx, accountId, until))),
  );
  const retry: LoadedMessage[] = [];
  const missedTurn: LoadedMessage[] = [];
  results.forEach((result, i) => {
    if (result.status === "fulfilled") {
      outcome[result.value]++;
      if (result.value === "missed_turn") missedTurn.push(now[i]!);
    } else {
      retry.push(now[i]!);
      if (!(result.reason instanceof RetryLater))
        ctx.logger.warn("dispatch failed; retrying later", {
          message_id: now[i]!.id,
          error: String(result.reason),
        });
    }
  });
  if (retry.length > 0) {
    if (attempt + 1 >= ctx.maxAttempts) {
      // Left queued without a claim: the reconciler queues them again (the count starts over).
      ctx.logger.warn("dispatch retries used up; left to the reconciler", {
        count: retry.length,
        attempts: attempt + 1,
      });
      finished.push(...retry.map((m) => m.id));
    } else {
      await ctx.producer.enqueue(retry.map(toEntry), {
        delayMs: Math.min(ctx.retryBaseMs * 2 ** attempt, 300_000) * (0.8 + Math.random() * 0.4),
        attempt: attempt + 1,
        from: jobId,
      });
      outcome.retried += retry.length;
    }
  }
  // Their second ended before they were written (the submits' waits on a loaded machine), or the
  // carrier has no room before it ends: a new job books them again from the next second on.
  // Sooner, it would book them into what is left of this second, find the carrier as full and
  // come back at once, as often as the account's limit leaves room (4,232 times for 15 messages
  // in a test at 1,000/s against a carrier's 3/s).
  if (missedTurn.length > 0)
    await ctx.producer.enqueue(missedTurn.map(toEntry), {
      attempt,
      from: jobId,
      delayMs: Math.max(0, (until ?? 0) - Date.now()),
    });
  for (const message of now)
    if (!retry.includes(message) && !missedTurn.includes(message)) finished.push(message.id);
  await ctx.producer.claims.release(jobId, finished);
  return outcome;
}

/**
 * A message's turn that, once its second has ended unwritten, may take a place in the account's
 * current second (Pacer.takeNow): at full speed a batch's marks straddle a second's end, and
 * booking those messages again cost each a second mark, a job and up to a second (8 % of
 * segments in bench:e2e). A few times at most, so a message on a machine that keeps it past every
 * second it is given is booked again like any other.
 */
function renewableTurn(ctx: BatchContext, accountId: string, until: number | undefined): PaceTurn {
  let renewals = 0;
  const turn: PaceTurn = {
    notAfter: until ?? Infinity,
    renew: async () => {
      if (renewals >= MAX_TURN_RENEWALS) return false;
      renewals++;
      const rate = await ctx.accountRates.get(accountId);
      const { taken, secondEndMs } = await ctx.pacer.takeNow(`mps:${accountId}`, 1, rate);
      if (taken === 0) return false;
      turn.notAfter = secondEndMs;
      return true;
    },
  };
  return turn;
}

const MAX_TURN_RENEWALS = 3;

function toEntry(message: LoadedMessage): DispatchEntry {
  return { messageId: message.id, accountId: message.accountId, priority: message.priority };
}
