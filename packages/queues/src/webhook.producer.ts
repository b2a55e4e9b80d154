import crypto from "node:crypto";
import { openQueue, type QueueContext } from "./bullmq";
import { QUEUES } from "./names";
import { SmppReceiptJob, WebhookDeliverJob } from "./payloads";

/** One delivery to queue: the event, its account, and where its retry schedule starts. */
export interface WebhookDelivery {
  eventId: string;
  accountId: string;
  /** Attempts already made (a replay restarts the schedule from here). */
  baseAttempt?: number;
}

/** A batch job to queue as it is (the worker's retries and hand-backs). */
export interface WebhookBatch extends WebhookDeliverJob {
  /** Milliseconds in BullMQ's delayed set first. @defaultValue 0 */
  delayMs?: number;
}

/** Events per webhook.deliver job: one relay claim (500 events) of one account is one job. */
export const WEBHOOK_BATCH_SIZE = 500;

/** Puts deliveries on webhook.deliver as batch jobs: one per account (and schedule start), at most WEBHOOK_BATCH_SIZE events each. */
export interface WebhookDeliverProducer {
  enqueue(deliveries: readonly WebhookDelivery[]): Promise<void>;
  /** Batches made by the worker (retries grouped by due time, the rest of a batch handed back). */
  enqueueBatches(batches: readonly WebhookBatch[]): Promise<void>;
  /** Moves delayed jobs to waiting now; a job no longer delayed (or gone) is left as it is. */
  promote(jobIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** Groups deliveries into batch jobs, each with a fresh claim. */
export function batchDeliveries(
  deliveries: readonly WebhookDelivery[],
  size = WEBHOOK_BATCH_SIZE,
): WebhookDeliverJob[] {
  const groups = new Map<string, WebhookDeliverJob[]>();
  const jobs: WebhookDeliverJob[] = [];
  for (const delivery of deliveries) {
    const key = `${delivery.accountId}/${delivery.baseAttempt ?? ""}`;
    const open = groups.get(key);
    let job = open?.[open.length - 1];
    if (!job || job.eventIds.length >= size) {
      job = {
        accountId: delivery.accountId,
        eventIds: [],
        ...(delivery.baseAttempt === undefined ? {} : { baseAttempt: delivery.baseAttempt }),
        claim: crypto.randomUUID(),
      };
      jobs.push(job);
      if (open) open.push(job);
      else groups.set(key, [job]);
    }
    job.eventIds.push(delivery.eventId);
  }
  return jobs;
}

export function createWebhookDeliverProducer(context: QueueContext): WebhookDeliverProducer {
  const queue = openQueue<WebhookDeliverJob>(context, QUEUES.webhookDeliver, {
    // The database keeps every delivery and attempt; Redis keeps only what is still to do.
    removeOnComplete: true,
    removeOnFail: true,
    // HTTP failures are rescheduled by the worker itself (docs/webhooks.md#delivery-and-retries); these
    // attempts cover the worker's own trouble (database unreachable, a crash).
    attempts: 8,
    backoff: { type: "exponential", delay: 1000 },
  });
  // BullMQ's own job ids: a repeated job is harmless (the worker claims its rows first, and
  // a second job finds them claimed or done), so no id has to make it unique.
  const add = async (batches: readonly WebhookBatch[]) => {
    if (batches.length === 0) return;
    await queue.addBulk(
      batches.map(({ delayMs, ...job }) => ({
        name: "deliver",
        data: WebhookDeliverJob.parse(job),
        ...(delayMs ? { opts: { delay: delayMs } } : {}),
      })),
    );
  };
  return {
    enqueue: (deliveries) => add(batchDeliveries(deliveries)),
    enqueueBatches: add,
    async promote(jobIds) {
      await Promise.all(
        jobIds.map(async (id) => {
          const job = await queue.getJob(id);
          // Not delayed any more (woken by another release, running, done): nothing to do.
          await job?.promote().catch(() => undefined);
        }),
      );
    },
    close: () => queue.close(),
  };
}

/** Puts status changes of SMPP-submitted messages on smpp.dlr-out; the job id is the event id. */
export interface SmppReceiptProducer {
  enqueue(jobs: readonly SmppReceiptJob[]): Promise<void>;
  close(): Promise<void>;
}

export function createSmppReceiptProducer(context: QueueContext): SmppReceiptProducer {
  const queue = openQueue<SmppReceiptJob>(context, QUEUES.smppDlrOut, {
    removeOnComplete: { age: 3600, count: 10000 },
    removeOnFail: { age: 7 * 24 * 3600 },
    attempts: 10,
    backoff: { type: "exponential", delay: 1000 },
  });
  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      await queue.addBulk(
        jobs.map((job) => ({
          name: "receipt",
          data: SmppReceiptJob.parse(job),
          opts: { jobId: job.eventId },
        })),
      );
    },
    close: () => queue.close(),
  };
}
