/**
 * Group commit for worker writes: items added while a flush runs are written together
 * by the next one, so 200 concurrent jobs cost a few transactions (and WAL flushes) per
 * tick instead of one each. Each add() resolves or rejects with its flush.
 */
export class Batcher<T> {
  private queue: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  private inFlight = 0;

  constructor(
    private readonly flushItems: (items: T[]) => Promise<void>,
    private readonly options: { maxBatch: number; maxConcurrent: number },
  ) {}

  add(item: T): Promise<void> {
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
          () => taken.forEach((entry) => entry.resolve()),
          (error: unknown) => taken.forEach((entry) => entry.reject(error)),
        )
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }
}
