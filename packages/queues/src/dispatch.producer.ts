import { openQueue, type QueueContext } from "./bullmq";
import { QUEUES } from "./names";
import { DispatchJob } from "./payloads";

/** Puts messages on sms.dispatch. */
export interface DispatchProducer {
  /** Enqueues one job per message id; the job id is the message id, so a repeat while the job exists is a no-op. */
  enqueue(messageIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export function createDispatchProducer(context: QueueContext): DispatchProducer {
  const queue = openQueue<DispatchJob>(context, QUEUES.smsDispatch, {
    removeOnComplete: { age: 3600, count: 10000 },
    // A job that used up its attempts must not keep its id: the scheduler's reconciler
    // re-adds queued messages by id, and BullMQ ignores an add whose id still exists.
    removeOnFail: true,
    attempts: 10,
    backoff: { type: "exponential", delay: 1000 },
  });
  return {
    async enqueue(messageIds) {
      if (messageIds.length === 0) return;
      await queue.addBulk(
        messageIds.map((messageId) => ({
          name: "dispatch",
          data: DispatchJob.parse({ messageId }),
          opts: { jobId: messageId },
        })),
      );
    },
    close: () => queue.close(),
  };
}
