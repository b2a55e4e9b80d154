import crypto from "node:crypto";
import type { Queue } from "bullmq";
import { openQueue, type QueueContext } from "./bullmq";
import { createDispatchClaims, type DispatchClaims } from "./dispatch-claims";
import { DISPATCH_QUEUES, PRIORITIES, type Priority } from "./names";
import { DispatchJob } from "./payloads";

/** A queued message as the producer needs it: jobs hold messages of one account and class. */
export interface DispatchEntry {
  messageId: string;
  accountId: string;
  priority: Priority;
}

/** How a group of entries goes on the queue. */
export interface EnqueueOptions {
  /** Milliseconds before the jobs may run. @defaultValue 0 */
  delayMs?: number;
  /** Carried into the jobs (see DispatchJob). @defaultValue 0 */
  attempt?: number;
  /** @defaultValue false */
  paced?: boolean;
  /** With paced: the end of the second the share was reserved in (see DispatchJob). */
  pacedUntil?: number;
  /** The job handing these messages on: its claims pass to the new jobs before they exist. */
  from?: string;
}

/** Puts messages on the dispatch queues, in batch jobs of one account and class. */
export interface DispatchProducer {
  /**
   * Enqueues the entries, at most `batchSize` messages per job, and claims them for their
   * job (a message some live job already holds stays with that job: the new one skips it).
   */
  enqueue(entries: readonly DispatchEntry[], options?: EnqueueOptions): Promise<void>;
  /** Like enqueue, but leaves out messages that some live job holds (the reconciler's re-enqueue). */
  enqueueUnheld(entries: readonly DispatchEntry[]): Promise<number>;
  readonly claims: DispatchClaims;
  close(): Promise<void>;
}

export interface DispatchProducerOptions {
  /** Messages per job at most. @defaultValue 100 */
  batchSize?: number;
  /**
   * How long a claim outlives its job's due time: a message whose job was lost without its
   * claim (a job deleted by hand) is re-enqueued by the reconciler after this. @defaultValue 600000
   */
  claimTtlMs?: number;
}

export function createDispatchProducer(
  context: QueueContext,
  options: DispatchProducerOptions = {},
): DispatchProducer {
  const batchSize = options.batchSize ?? 100;
  const claimTtlMs = options.claimTtlMs ?? 600_000;
  const claims = createDispatchClaims(context.connection, context.prefix);
  const queues = new Map<Priority, Queue<DispatchJob>>(
    PRIORITIES.map((priority) => [
      priority,
      openQueue<DispatchJob>(context, DISPATCH_QUEUES[priority], {
        removeOnComplete: true,
        // Failures are retried by the dispatcher itself (new, delayed jobs); these attempts cover
        // the worker's own trouble (the database unreachable mid-batch). A job that used them up
        // is dropped with its claims left to expire: the reconciler then queues its messages again.
        removeOnFail: true,
        attempts: 10,
        backoff: { type: "exponential", delay: 1000 },
      }),
    ]),
  );

  async function enqueue(entries: readonly DispatchEntry[], opts: EnqueueOptions = {}): Promise<void> {
    const jobs = planJobs(entries, batchSize, opts);
    const ttl = claimTtlMs + (opts.delayMs ?? 0);
    // Handing on: the claims move first, so the new job finds them its own even if it runs at once.
    if (opts.from)
      await Promise.all(jobs.map((job) => claims.claim(job.id, job.data.messageIds, ttl, opts.from)));
    for (const priority of PRIORITIES) {
      const ofClass = jobs.filter((job) => job.priority === priority);
      if (ofClass.length === 0) continue;
      await queues.get(priority)!.addBulk(
        ofClass.map((job) => ({
          name: "dispatch",
          data: job.data,
          opts: { jobId: job.id, ...(opts.delayMs ? { delay: Math.ceil(opts.delayMs) } : {}) },
        })),
      );
    }
    // After the add: a claim whose job never reached Redis would hide its messages from the relays.
    if (!opts.from) await Promise.all(jobs.map((job) => claims.claim(job.id, job.data.messageIds, ttl)));
  }

  return {
    claims,
    enqueue,
    async enqueueUnheld(entries) {
      const held = await claims.isHeld(entries.map((entry) => entry.messageId));
      const unheld = entries.filter((_, i) => !held[i]);
      await enqueue(unheld);
      return unheld.length;
    },
    async close() {
      await Promise.all([...queues.values()].map((queue) => queue.close()));
    },
  };
}

interface PlannedJob {
  id: string;
  priority: Priority;
  data: DispatchJob;
}

/** Groups entries by class and account, in arrival order (each message once), and cuts each group into jobs. */
export function planJobs(
  entries: readonly DispatchEntry[],
  batchSize: number,
  opts: Pick<EnqueueOptions, "attempt" | "paced" | "pacedUntil"> = {},
): PlannedJob[] {
  const groups = new Map<string, DispatchEntry[]>();
  // A message twice in one job would be claimed twice by the same job and dispatched twice.
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.messageId)) continue;
    seen.add(entry.messageId);
    const key = `${entry.priority}\u0000${entry.accountId}`;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  const jobs: PlannedJob[] = [];
  for (const group of groups.values()) {
    const { priority, accountId } = group[0]!;
    for (let i = 0; i < group.length; i += batchSize) {
      const data = DispatchJob.parse({
        messageIds: group.slice(i, i + batchSize).map((entry) => entry.messageId),
        accountId,
        attempt: opts.attempt ?? 0,
        paced: opts.paced ?? false,
        pacedUntil: opts.pacedUntil,
      });
      // Not the message id any more (a job holds many): a fresh id per job, claims do the de-duplication.
      jobs.push({ id: `dsp-${crypto.randomUUID()}`, priority, data });
    }
  }
  return jobs;
}
