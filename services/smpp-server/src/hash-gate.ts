/**
 * Bounds the scrypt work of binds: at most `concurrency` password checks at once, the waiting
 * ones taken in turn per client address (round robin), so a few hostile sockets hashing as fast
 * as they can hold one turn each, not the whole queue, and a real customer's bind waits for
 * at most one check per address ahead of it.
 */
export class HashGate {
  private running = 0;
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly concurrency: number) {}

  /** Runs `work` when a slot is free and it is `address`'s turn. */
  async run<T>(address: string, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency || this.waiting.size > 0)
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(address) ?? [];
        queue.push(resolve);
        this.waiting.set(address, queue);
      });
    else this.running++;
    try {
      return await work();
    } finally {
      this.next();
    }
  }

  /** Hands the slot to the oldest waiter of the next address in turn (a Map iterates in insertion order). */
  private next(): void {
    const turn = this.waiting.entries().next();
    if (turn.done) {
      this.running--;
      return;
    }
    const [address, queue] = turn.value;
    const resolve = queue.shift()!;
    // The address goes to the back of the line: re-inserted only if it has more waiting.
    this.waiting.delete(address);
    if (queue.length > 0) this.waiting.set(address, queue);
    resolve();
  }
}
