import type { Logger } from "@sms/logger";
import {
  openWorker,
  type Job,
  type Processor,
  type QueueContext,
  type QueueName,
  type Worker,
  type WorkerOptions,
} from "@sms/queues";
import { closeWorkerWithin } from "./close-worker";

/** What registerWorker needs of the queue metrics (an @sms/metrics QueueMetrics). */
export interface WorkerInstrumentation {
  instrumentWorker(worker: Worker, context: QueueContext): void;
}

/** A queue worker opened by registerWorker. */
export interface RegisteredWorker<T> {
  worker: Worker<T>;
  /** Stops taking jobs, waits up to `ms` for the running ones, closes; true when all finished. */
  close(ms: number): Promise<boolean>;
}

/**
 * Opens a queue's worker the one way every service does: instrumented, a failed job logged
 * with the fields `failed.fields` picks, a worker error logged as `errorMessage` (or dropped
 * when it is not given), and a close bounded by the caller's shutdown bound.
 */
export function registerWorker<T>(
  context: QueueContext,
  queue: QueueName,
  processor: Processor<T>,
  options: {
    logger: Logger;
    metrics: WorkerInstrumentation;
    /** BullMQ's worker options: concurrency, lockDuration, stalledInterval… */
    worker?: Omit<WorkerOptions, "connection" | "prefix">;
    /** The warning logged for a failed job; the error's message is added as `error`. */
    failed: { message: string; fields: (job: Job<T> | undefined) => Record<string, unknown> };
    /** The warning logged for a worker error. Without a listener BullMQ prints them raw to stderr. */
    errorMessage?: string;
  },
): RegisteredWorker<T> {
  const { logger, failed, errorMessage } = options;
  const worker = openWorker<T>(context, queue, processor, options.worker);
  options.metrics.instrumentWorker(worker as Worker, context);
  worker.on("failed", (job, error) =>
    logger.warn(failed.message, { ...failed.fields(job), error: error.message }),
  );
  worker.on("error", (error) => {
    if (errorMessage) logger.warn(errorMessage, { error: error.message });
  });
  return { worker, close: (ms) => closeWorkerWithin(worker, ms) };
}
