/**
 * Group commit for worker writes: items added while a flush runs are written together
 * by the next one, so hundreds of concurrent jobs cost a few transactions (and WAL
 * flushes) per tick instead of one each. `flushItems` returns one result per item, in
 * order; each add() resolves with its own, or rejects with its flush's error.
 */
export class Batcher<T, R = void> {
  private queue: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  private inFlight = 0;

  constructor(
    private readonly flushItems: (items: T[]) => Promise<R[] | void>,
    private readonly options: { maxBatch: number; maxConcurrent: number },
  ) {}

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    while (this.inFlight < this.options.maxConcurrent && this.queue.length > 0) {
      const taken = this.queue.splice(0, this.options.maxBatch);
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
