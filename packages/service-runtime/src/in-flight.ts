/** Counts work in progress, so shutdown can wait for it (up to a bound). */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  /** Runs `work`, tracked until it settles. */
  track<T>(work: () => Promise<T>): Promise<T> {
    const promise = work();
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return promise;
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves when everything tracked has settled, or after `timeoutMs`. */
  async idle(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all(this.running), timeout]);
    clearTimeout(timer);
  }
}
