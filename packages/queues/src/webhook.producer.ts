import crypto from "node:crypto";
import { openQueue, type QueueContext } from "./bullmq";
import {
  QUEUES,
  WEBHOOK_CLASSES,
  WEBHOOK_QUEUES,
  webhookClassOf,
  type QueueName,
  type WebhookClass,
} from "./names";
import { SmppReceiptJob, WebhookDeliverJob } from "./payloads";

/** One delivery to queue: the event, its account, and where its retry schedule starts. */
export interface WebhookDelivery {
  eventId: string;
  accountId: string;
  /** Attempts already made (a replay restarts the schedule from here). */
  baseAttempt?: number;
  /** The queue it goes on (webhookClassOfPriority of its message). @defaultValue "standard" */
  webhookClass?: WebhookClass;
}

/** A batch job to queue as it is (the worker's retries and hand-backs). */
export interface WebhookBatch extends WebhookDeliverJob {
  /** Milliseconds in BullMQ's delayed set first. @defaultValue 0 */
  delayMs?: number;
}

/** Events per webhook.deliver job: one relay claim (500 events) of one account is one job. */
export const WEBHOOK_BATCH_SIZE = 500;

/**
 * Puts deliveries on the webhook.deliver queue of their class as batch jobs: one per account,
 * class and schedule start, at most WEBHOOK_BATCH_SIZE events each.
 */
export interface WebhookDeliverProducer {
  enqueue(deliveries: readonly WebhookDelivery[]): Promise<void>;
  /** Batches made by the worker (retries grouped by due time, the rest of a batch handed back). */
  enqueueBatches(batches: readonly WebhookBatch[]): Promise<void>;
  /** Moves delayed jobs (webhookJobRef) to waiting now; a job no longer delayed (or gone) is left as it is. */
  promote(jobRefs: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * A job's name across the queues, whose ids each count from 1: its id on webhook.deliver,
 * `high/<id>` on webhook.deliver.high, `bulk/<id>` on webhook.deliver.bulk.
 */
export function webhookJobRef(job: { id?: string; data: Pick<WebhookDeliverJob, "high" | "bulk"> }): string {
  const webhookClass = webhookClassOf(job.data);
  return webhookClass === "standard" ? String(job.id) : `${webhookClass}/${job.id}`;
}

function parseWebhookJobRef(ref: string): { webhookClass: WebhookClass; id: string } {
  const slash = ref.indexOf("/");
  const named = ref.slice(0, slash) as WebhookClass;
  return slash > 0 && WEBHOOK_CLASSES.includes(named)
    ? { webhookClass: named, id: ref.slice(slash + 1) }
    : { webhookClass: "standard", id: ref };
}

/** Groups deliveries into batch jobs, each with a fresh claim. */
export function batchDeliveries(
  deliveries: readonly WebhookDelivery[],
  size = WEBHOOK_BATCH_SIZE,
): WebhookDeliverJob[] {
  const groups = new Map<string, WebhookDeliverJob[]>();
  const jobs: WebhookDeliverJob[] = [];
  for (const delivery of deliveries) {
    const webhookClass = delivery.webhookClass ?? "standard";
    const key = `${delivery.accountId}/${webhookClass}/${delivery.baseAttempt ?? ""}`;
    const open = groups.get(key);
    let job = open?.[open.length - 1];
    if (!job || job.eventIds.length >= size) {
      job = {
        accountId: delivery.accountId,
        eventIds: [],
        ...(delivery.baseAttempt === undefined ? {} : { baseAttempt: delivery.baseAttempt }),
        claim: crypto.randomUUID(),
        ...(webhookClass === "high" ? { high: true as const } : {}),
        ...(webhookClass === "bulk" ? { bulk: true as const } : {}),
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
  const open = (name: QueueName) =>
    openQueue<WebhookDeliverJob>(context, name, {
      // The database keeps every delivery and attempt; Redis keeps only what is still to do.
      removeOnComplete: true,
      removeOnFail: true,
      // HTTP failures are rescheduled by the worker itself (docs/webhooks.md#delivery-and-retries); these
      // attempts cover the worker's own trouble (database unreachable, a crash).
      attempts: 8,
      backoff: { type: "exponential", delay: 1000 },
    });
  const queues = Object.fromEntries(WEBHOOK_CLASSES.map((c) => [c, open(WEBHOOK_QUEUES[c])])) as Record<
    WebhookClass,
    ReturnType<typeof open>
  >;
  // BullMQ's own job ids: a repeated job is harmless (the worker claims its rows first, and
  // a second job finds them claimed or done), so no id has to make it unique.
  const add = async (webhookClass: WebhookClass, batches: readonly WebhookBatch[]) => {
    if (batches.length === 0) return;
    await queues[webhookClass].addBulk(
      batches.map(({ delayMs, ...job }) => ({
        name: "deliver",
        data: WebhookDeliverJob.parse(job),
        ...(delayMs ? { opts: { delay: delayMs } } : {}),
      })),
    );
  };
  const addByClass = async (batches: readonly WebhookBatch[]) => {
    await Promise.all(
      WEBHOOK_CLASSES.map((webhookClass) =>
        add(
          webhookClass,
          batches.filter((batch) => webhookClassOf(batch) === webhookClass),
        ),
      ),
    );
  };
  return {
    enqueue: (deliveries) => addByClass(batchDeliveries(deliveries)),
    enqueueBatches: addByClass,
    async promote(jobRefs) {
      await Promise.all(
        jobRefs.map(async (ref) => {
          const { webhookClass, id } = parseWebhookJobRef(ref);
          const job = await queues[webhookClass].getJob(id);
          // Not delayed any more (woken by another release, running, done): nothing to do.
          await job?.promote().catch(() => undefined);
        }),
      );
    },
    close: async () => {
      await Promise.all(Object.values(queues).map((queue) => queue.close()));
    },
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
