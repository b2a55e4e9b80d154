import crypto from "node:crypto";
import {
  DelayedError,
  webhookJobRef,
  type Job,
  type WebhookBatch,
  type WebhookDeliverJob,
} from "@sms/queues";
import type { Logger } from "@sms/logger";
import type { DeliveryTarget } from "@sms/webhooks";
import { renderWebhookBody } from "@sms/webhooks";
import type { WebhookSender } from "@sms/webhooks";
import type { AttemptRecord, ClaimedDelivery, DeliveryStore } from "./delivery-store";
import type { EndpointHealth } from "./endpoint-health";
import type { EndpointLeases, Lease } from "./endpoint-leases";
import { nextRetryDelay } from "./schedule";

export interface DeliverContext {
  store: DeliveryStore;
  endpoints: EndpointHealth;
  leases: EndpointLeases;
  sender: WebhookSender;
  /** Queues this worker's own batches: retries, and the rest of a batch handed on. */
  enqueue(batches: readonly WebhookBatch[]): Promise<void>;
  /** Moves jobs waiting for an endpoint's slots (webhookJobRef) out of the delayed set, now that slots are free. */
  wake(jobRefs: readonly string[]): Promise<void>;
  logger: Logger;
  retryScheduleMs: readonly number[];
  /** An endpoint at its cap sends the job back to wait until a release wakes it, or at most about this long (capWait). */
  capWaitMs: number;
  /** A batch starts no attempt after this long; the rest goes on as a new job. */
  batchMaxMs: number;
  /** How long a claim holds its rows: more than batchMaxMs plus one attempt. */
  claimMs: number;
  /** True once the service is stopping: start no attempt, hand the rest on. */
  isStopping(): boolean;
}

/** What one batch job did, by delivery. */
export interface BatchSummary {
  succeeded: number;
  retry: number;
  failed: number;
  /** Not pending, or held by another job's claim: someone else's, or done. */
  skipped: number;
  /** Left for a new job (the batch's time bound, a shutdown). */
  handedOn: number;
}

/**
 * One batch of deliveries to one endpoint. The job is the trigger; webhook_deliveries is
 * the truth: the job claims its rows first (one statement), so a repeated or late job
 * for the same rows sends none of them twice at once, and a finished one not at all.
 * Slots on the endpoint come first, in one Redis call: at the cap the job goes back to
 * BullMQ's delayed set before any database work, so a slow endpoint's backlog waits in
 * Redis, not in a worker slot, until a job giving slots back wakes it. Attempts run in parallel, one per slot; their records are
 * grouped across jobs; failures go on as delayed batch jobs, one per step of the schedule.
 */
export async function deliverBatch(
  context: DeliverContext,
  job: Job<WebhookDeliverJob>,
  token?: string,
): Promise<BatchSummary> {
  const { accountId, eventIds, claim } = job.data;
  const target = await context.endpoints.target(accountId);
  if (!target?.enabled) {
    // Only still-pending deliveries change, so finished ones need no read first.
    await context.store.failWithoutAttempt(eventIds, target ? "endpoint disabled" : "no endpoint");
    return { ...NONE, failed: eventIds.length };
  }
  const lease = await context.leases.acquire(accountId, eventIds.length, webhookJobRef(job));
  if (!lease) {
    await job.moveToDelayed(Date.now() + capWait(context.capWaitMs, job.attemptsStarted), token);
    throw new DelayedError();
  }
  let run: BatchRun;
  try {
    const claimed = await context.store.claim(eventIds, claim, context.claimMs);
    run = new BatchRun(context, job.data, target, claimed);
    await run.send(lease.slots);
  } finally {
    await releaseAndWake(context, lease);
  }
  return run.finish(eventIds.length);
}

/**
 * The jobs that found the endpoint at its cap wait in the delayed set; the release that frees
 * slots wakes them, so a busy fast endpoint takes its next batch at once rather than when a
 * doubling wait runs out (bench:inbound's webhook stage stood idle for seconds that way).
 * A wake that fails leaves the job to its own wait.
 */
async function releaseAndWake(context: DeliverContext, lease: Lease): Promise<void> {
  const woken = await lease.release();
  if (woken.length === 0) return;
  await context
    .wake(woken)
    .catch((error: unknown) =>
      context.logger.warn("waiting webhook jobs not woken", { jobs: woken.length, error: String(error) }),
    );
}

/**
 * How long a job at its endpoint's cap waits if no release wakes it first (a release lost
 * with a worker that died, or one that came before the job was in the delayed set): a
 * twentieth of `maxMs` the first time (100 ms by default), doubling each time it comes back
 * to a full endpoint (BullMQ counts its starts), up to `maxMs`; ×0.5–1.5 so waiting jobs
 * spread out.
 */
export function capWait(maxMs: number, starts: number, random = Math.random): number {
  const base = Math.min(maxMs, (maxMs / 20) * 2 ** Math.min(Math.max(starts - 1, 0), 16));
  return Math.round(base * (0.5 + random()));
}

const NONE: BatchSummary = { succeeded: 0, retry: 0, failed: 0, skipped: 0, handedOn: 0 };

/** The attempts of one claimed batch and what follows from them. */
class BatchRun {
  private next = 0;
  private readonly deadline: number;
  private readonly summary = { ...NONE };
  /** Records on their way to the database (grouped with other jobs'); awaited before the job ends. */
  private readonly writes: Array<Promise<void>> = [];
  /** Failed deliveries by the step of the schedule they wait for: one delayed job each. */
  private readonly retries = new Map<number, { dueAt: number; eventIds: string[] }>();

  constructor(
    private readonly context: DeliverContext,
    private readonly job: WebhookDeliverJob,
    private readonly target: DeliveryTarget,
    private readonly claimed: ClaimedDelivery[],
  ) {
    this.deadline = Date.now() + context.batchMaxMs;
  }

  /** A record on its way; a failed one fails the job (at finish), never goes unheard. */
  private track(write: Promise<void>): void {
    write.catch(() => undefined);
    this.writes.push(write);
  }

  /** Runs `lanes` attempts at a time until the batch is done, its time is up, or the service stops. */
  async send(lanes: number): Promise<void> {
    const lane = async () => {
      while (this.next < this.claimed.length && this.mayStartAttempt()) {
        await this.attempt(this.claimed[this.next++]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(lanes, this.claimed.length) }, lane));
  }

  private mayStartAttempt(): boolean {
    return this.target.enabled && Date.now() < this.deadline && !this.context.isStopping();
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { context, target } = this;
    const result = await context.sender.send({
      url: target.url,
      secrets: target.secrets,
      id: delivery.eventId,
      body: renderWebhookBody(delivery.payload),
    });
    const attempt = delivery.attempts + 1;
    // Each field written out, no spread of a shared part: Node 20's V8 adds every property that
    // follows a spread through its slow path, about 2 µs each (docs/decisions.md#spreads).
    const recordAs = (status: AttemptRecord["status"], nextAttemptAt: Date | null) =>
      context.store.record({
        eventId: delivery.eventId,
        accountId: target.accountId,
        attempt,
        url: target.url,
        result,
        status,
        nextAttemptAt,
      });
    if (result.outcome === "success") {
      this.summary.succeeded++;
      this.track(recordAs("succeeded", null));
      await context.endpoints.succeeded(target);
      return;
    }
    if (result.outcome === "gone") {
      this.summary.failed++;
      this.track(recordAs("failed", null));
      await context.endpoints.disable(target, "gone");
      return;
    }
    const step = attempt - (this.job.baseAttempt ?? 0);
    const delay = nextRetryDelay(step, context.retryScheduleMs, result.retryAfterMs);
    if (delay === null) {
      this.summary.failed++;
      this.track(recordAs("failed", null));
      context.logger.info("webhook delivery failed for good", {
        account_id: target.accountId,
        event_id: delivery.eventId,
        attempts: attempt,
        error: result.error,
      });
    } else {
      this.summary.retry++;
      const dueAt = Date.now() + delay;
      this.retryLater(delivery.eventId, step, dueAt);
      this.track(recordAs("pending", new Date(dueAt)));
    }
    await context.endpoints.failed(target, result.startedAt);
  }

  /**
   * The deliveries of one step of the schedule wait for one job, due when the latest of
   * them is: each row's own time (its jitter, its Retry-After) is a lower bound.
   */
  private retryLater(eventId: string, step: number, dueAt: number): void {
    const group = this.retries.get(step);
    if (group) {
      group.dueAt = Math.max(group.dueAt, dueAt);
      group.eventIds.push(eventId);
    } else this.retries.set(step, { dueAt, eventIds: [eventId] });
  }

  /** Waits for the records, then queues the retries and the rest of the batch. */
  async finish(asked: number): Promise<BatchSummary> {
    await Promise.all(this.writes);
    const { accountId, baseAttempt, claim, high, bulk } = this.job;
    // Retries and the rest stay in the job's class (its queue), from where the schedule started.
    const start = {
      ...(baseAttempt === undefined ? {} : { baseAttempt }),
      ...(high ? { high } : {}),
      ...(bulk ? { bulk } : {}),
    };
    const batches: WebhookBatch[] = [];
    for (const { dueAt, eventIds } of this.retries.values()) {
      batches.push({
        accountId,
        eventIds,
        ...start,
        claim: crypto.randomUUID(),
        delayMs: dueAt - Date.now(),
      });
    }
    const rest = this.claimed.slice(this.next).map((delivery) => delivery.eventId);
    if (rest.length > 0 && !this.target.enabled) {
      await this.context.store.failWithoutAttempt(rest, "endpoint disabled");
      this.summary.failed += rest.length;
    } else if (rest.length > 0) {
      // Same claim: the new job takes these rows straight back, nobody else can meanwhile.
      batches.push({ accountId, eventIds: rest, ...start, claim });
      this.summary.handedOn = rest.length;
    }
    await this.context.enqueue(batches);
    this.summary.skipped = asked - this.claimed.length;
    return this.summary;
  }
}
