import { Counter, Gauge, Histogram } from "prom-client";
import { openQueue, type QueueContext, type QueueName } from "@sms/queues";
import type { MetricsRegistry } from "./registry";
import { withinScrapeBudget } from "./scrape-time";

/** Job states reported by sms_queue_jobs (completed is left out: it only grows until BullMQ trims it). */
export const QUEUE_STATES = ["waiting", "active", "delayed", "prioritized", "paused", "failed"] as const;

/** What the instrumentation reads of a BullMQ job. */
interface JobTimes {
  timestamp: number;
  delay?: number;
  processedOn?: number;
  finishedOn?: number;
  attemptsStarted?: number;
}
/** The part of a BullMQ Worker the instrumentation listens to. */
export interface ObservableWorker {
  readonly name: string;
  on(event: "active", listener: (job: JobTimes) => void): unknown;
  on(event: "completed", listener: (job: JobTimes) => void): unknown;
  on(event: "failed", listener: (job: JobTimes | undefined) => void): unknown;
  on(event: "closed", listener: () => void): unknown;
}
/** Anything that counts a queue's jobs by state (a BullMQ Queue). */
export interface JobCountsSource {
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

const JOB_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** Work done by this process's BullMQ workers, and the depth of the queues it watches. */
export class QueueMetrics {
  readonly processed: Counter<"queue">;
  readonly failed: Counter<"queue">;
  readonly wait: Histogram<"queue">;
  readonly duration: Histogram<"queue">;
  readonly depth: Gauge<"queue" | "state">;
  private readonly watched = new Map<symbol, { queue: string; source: JobCountsSource }>();

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.processed = new Counter({
      name: "sms_queue_jobs_processed_total",
      help: "Jobs this process completed, per queue",
      labelNames: ["queue"],
      registers,
    });
    this.failed = new Counter({
      name: "sms_queue_jobs_failed_total",
      help: "Job attempts that failed in this process, per queue (BullMQ retries those with attempts left)",
      labelNames: ["queue"],
      registers,
    });
    this.wait = new Histogram({
      name: "sms_queue_job_wait_seconds",
      help: "From a job's enqueue (or the end of its delay) to the start of its first attempt, per queue",
      labelNames: ["queue"],
      buckets: JOB_SECONDS,
      registers,
    });
    this.duration = new Histogram({
      name: "sms_queue_job_duration_seconds",
      help: "Time a completed job's last attempt ran, per queue",
      labelNames: ["queue"],
      buckets: JOB_SECONDS,
      registers,
    });
    const watched = this.watched;
    this.depth = new Gauge({
      name: "sms_queue_jobs",
      help: "Jobs in a queue by state, read from Redis at scrape time (every replica reports the same queue: aggregate with max)",
      labelNames: ["queue", "state"],
      registers,
      async collect() {
        this.reset();
        await Promise.all(
          [...watched.values()].map(async ({ queue, source }) => {
            // A queue whose counts do not come back in time is left out of this scrape
            // (absent, not stale: a scaler falls back instead of acting on old numbers).
            const counts = await withinScrapeBudget(source.getJobCounts(...QUEUE_STATES)).catch(() => null);
            if (!counts) return;
            for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state] ?? 0);
          }),
        );
      },
    });
  }

  /** Reports the depth of `queue` on every scrape until the returned function is called. */
  watchDepth(queue: string, source: JobCountsSource): () => void {
    const key = Symbol(queue);
    this.watched.set(key, { queue, source });
    return () => this.watched.delete(key);
  }

  /**
   * Counts a worker's completed and failed jobs and their wait and run times, and
   * reports its queue's depth (through a Queue on the same connection) until the
   * worker closes.
   */
  instrumentWorker(worker: ObservableWorker, context: QueueContext): void {
    const queue = worker.name;
    worker.on("active", (job) => {
      // Only the first attempt: a retry's wait would count its back-off as queueing.
      if ((job.attemptsStarted ?? 1) > 1 || job.processedOn === undefined) return;
      const readyAt = job.timestamp + (job.delay ?? 0);
      this.wait.observe({ queue }, Math.max(0, job.processedOn - readyAt) / 1000);
    });
    worker.on("completed", (job) => {
      this.processed.inc({ queue });
      if (job.processedOn !== undefined && job.finishedOn !== undefined)
        this.duration.observe({ queue }, Math.max(0, job.finishedOn - job.processedOn) / 1000);
    });
    worker.on("failed", () => this.failed.inc({ queue }));
    const depthQueue = openQueue(context, queue as QueueName);
    const unwatch = this.watchDepth(queue, depthQueue);
    worker.on("closed", () => {
      unwatch();
      // The connection is the caller's: BullMQ leaves it open, the service closes it.
      void depthQueue.close().catch(() => undefined);
    });
  }
}
