// The only file that constructs BullMQ queues and workers: their prefixes and connections are set once, here.
import { Queue, Worker, type JobsOptions, type Processor, type WorkerOptions } from "bullmq";
import type { Redis } from "@sms/redis";
import { queuePrefix, type QueueName } from "./names";

export type { Job, Processor, Worker, WorkerOptions } from "bullmq";
export { DelayedError } from "bullmq";

/** Connection and namespace shared by every queue of a process. */
export interface QueueContext {
  /** A connection made with `createRedis(url, "queue")` (maxRetriesPerRequest: null). */
  connection: Redis;
  /** The deployment's key prefix (REDIS_PREFIX). */
  prefix: string;
}

/** A producer-side queue; callers go through the typed producers, not this. */
export function openQueue<T>(
  context: QueueContext,
  name: QueueName,
  defaultJobOptions: JobsOptions = {},
): Queue<T> {
  const queue = new Queue<T>(name, {
    connection: context.connection,
    prefix: queuePrefix(context.prefix, name),
    defaultJobOptions,
    // Producers sit on request paths: fail fast instead of waiting for a connection.
    skipWaitingForReady: true,
  });
  // Without a listener BullMQ prints raw stack traces on every reconnect while Redis is
  // down; the failed calls themselves reach their callers.
  queue.on("error", () => undefined);
  return queue;
}

/**
 * A worker on `name`. It duplicates the given connection for its blocking reads.
 * @param options.concurrency jobs in parallel; @defaultValue 1
 */
export function openWorker<T>(
  context: QueueContext,
  name: QueueName,
  processor: Processor<T>,
  options: Omit<WorkerOptions, "connection" | "prefix"> = {},
): Worker<T> {
  return new Worker<T>(name, processor, {
    ...options,
    connection: context.connection,
    prefix: queuePrefix(context.prefix, name),
  });
}
