/**
 * The linger of the pipeline's group commits (the dispatcher's marks and submit records, the
 * receipts): 5 ms gathers a statement of many where flushing as soon as a slot was free sent many
 * small ones, each planned (docs/decisions.md#partitions) and each taking its advisory locks: 4 to
 * 8 % less CPU per message in bench:e2e (docs/benchmarks.md#write-linger). The customer's answer
 * waits for none of them.
 */
export const PIPELINE_WRITE_LINGER_MS = 5;

/**
 * Group commit for worker writes: items added while a flush runs are written together
 * by the next one, so hundreds of concurrent jobs cost a few transactions (and WAL
 * flushes) per tick instead of one each. `flushItems` returns one result per item, in
 * order; each add() resolves with its own, or rejects with its flush's error.
 */
export class Batcher<T, R = void> {
  private queue: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  private inFlight = 0;
  /** Whether the queued items have waited their linger (always, without one). */
  private ripe: boolean;
  private linger: NodeJS.Timeout | undefined;

  /**
   * @param options.lingerMs how long an item that finds the queue empty waits for others
   * before its flush starts (unless `maxBatch` gather first): under a trickle, items that
   * come a few milliseconds apart share a statement instead of one each. @defaultValue 0
   */
  constructor(
    private readonly flushItems: (items: T[]) => Promise<R[] | void>,
    private readonly options: { maxBatch: number; maxConcurrent: number; lingerMs?: number },
  ) {
    this.ripe = !options.lingerMs;
  }

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    while (this.inFlight < this.options.maxConcurrent && this.queue.length > 0) {
      if (!this.ripe && this.queue.length < this.options.maxBatch) {
        // Not unref'd: a process must not exit with records still waiting to be written.
        this.linger ??= setTimeout(() => {
          this.linger = undefined;
          this.ripe = true;
          this.schedule();
        }, this.options.lingerMs);
        return;
      }
      const taken = this.queue.splice(0, this.options.maxBatch);
      if (this.queue.length === 0 && this.options.lingerMs) {
        // The next item to come waits its own linger.
        this.ripe = false;
        clearTimeout(this.linger);
        this.linger = undefined;
      }
      this.inFlight++;
      this.flushItems(taken.map((entry) => entry.item))
        .then(
          (results) => taken.forEach((entry, i) => entry.resolve((results ? results[i] : undefined) as R)),
          (error: unknown) => taken.forEach((entry) => entry.reject(error)),
        )
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }
}
