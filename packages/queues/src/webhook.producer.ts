import { openQueue, type QueueContext } from "./bullmq";
import { QUEUES } from "./names";
import { SmppReceiptJob, WebhookDeliverJob } from "./payloads";

/** Puts deliveries on webhook.deliver; the job id is the event id (a repeat while it waits is a no-op). */
export interface WebhookDeliverProducer {
  enqueue(jobs: readonly WebhookDeliverJob[], options?: { jobIdSuffix?: string }): Promise<void>;
  close(): Promise<void>;
}

export function createWebhookDeliverProducer(context: QueueContext): WebhookDeliverProducer {
  const queue = openQueue<WebhookDeliverJob>(context, QUEUES.webhookDeliver, {
    // The database keeps every delivery and attempt; Redis keeps only what is still to do.
    removeOnComplete: true,
    removeOnFail: true,
    // HTTP failures are rescheduled by the worker itself (DESIGN §5 schedule); these
    // attempts cover the worker's own trouble (database unreachable, a crash).
    attempts: 8,
    backoff: { type: "exponential", delay: 1000 },
  });
  return {
    async enqueue(jobs, options = {}) {
      if (jobs.length === 0) return;
      await queue.addBulk(
        jobs.map((job) => ({
          name: "deliver",
          data: WebhookDeliverJob.parse(job),
          // A replay needs a fresh id: the first job may still be known to BullMQ.
          opts: { jobId: options.jobIdSuffix ? `${job.eventId}-${options.jobIdSuffix}` : job.eventId },
        })),
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
