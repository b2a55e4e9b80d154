import type { Job } from "bullmq";
import { openQueue, type QueueContext } from "./bullmq";
import { DISPATCH_QUEUES, PRIORITIES, type Priority } from "./names";
import type { DispatchJob } from "./payloads";

/** A dispatch job not yet finished, with its class. */
export interface PendingDispatchJob {
  priority: Priority;
  job: Job<DispatchJob>;
}

/**
 * Every dispatch job still waiting, delayed or running, across the classes. A scan of the
 * queues (jobs hold many messages, so a message id is no job id): for operators and tests.
 */
export async function pendingDispatchJobs(context: QueueContext): Promise<PendingDispatchJob[]> {
  const found: PendingDispatchJob[] = [];
  for (const priority of PRIORITIES) {
    const queue = openQueue<DispatchJob>(context, DISPATCH_QUEUES[priority]);
    try {
      const jobs = await queue.getJobs(["waiting", "delayed", "active", "prioritized", "waiting-children"]);
      for (const job of jobs) if (job) found.push({ priority, job });
    } finally {
      await queue.close();
    }
  }
  return found;
}

/** The pending dispatch jobs that list `messageId`. */
export async function pendingDispatchJobsOf(
  context: QueueContext,
  messageId: string,
): Promise<PendingDispatchJob[]> {
  return (await pendingDispatchJobs(context)).filter(({ job }) => job.data.messageIds.includes(messageId));
}
