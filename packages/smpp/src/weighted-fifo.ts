import { Fifo } from "./fifo";

/**
 * First-in first-out queues of several classes, served in proportion to their weights
 * among the classes that have items (smooth weighted round robin): with weights 6, 3, 1
 * and all three waiting, ten shifts give six, three and one, interleaved. A class is
 * slowed by the others, never stopped.
 */
export class WeightedFifo<T> {
  private readonly queues: Array<Fifo<T>>;
  private readonly credits: number[];

  constructor(private readonly weights: readonly number[]) {
    if (weights.length === 0 || weights.some((w) => !(w > 0)))
      throw new RangeError(`weights must be positive, got ${weights.join(", ")}`);
    this.queues = weights.map(() => new Fifo<T>());
    this.credits = weights.map(() => 0);
  }

  get size(): number {
    return this.queues.reduce((sum, queue) => sum + queue.size, 0);
  }

  /** Adds `item` to class `cls` (clamped to the classes there are). */
  push(item: T, cls: number): void {
    this.queues[Math.min(Math.max(0, Math.trunc(cls)), this.queues.length - 1)]!.push(item);
  }

  /** The next item by weight; undefined when every class is empty. */
  shift(): T | undefined {
    let best = -1;
    let total = 0;
    for (let i = 0; i < this.queues.length; i++) {
      if (this.queues[i]!.size === 0) {
        // A class that had nothing to send earns no credit for later.
        this.credits[i] = 0;
        continue;
      }
      this.credits[i]! += this.weights[i]!;
      total += this.weights[i]!;
      if (best < 0 || this.credits[i]! > this.credits[best]!) best = i;
    }
    if (best < 0) return undefined;
    this.credits[best]! -= total;
    return this.queues[best]!.shift();
  }

  /** Removes and returns every item, class by class. */
  drain(): T[] {
    return this.queues.flatMap((queue) => queue.drain());
  }
}
