/**
 * Counts per key in fixed one-second windows: the simplest model of a carrier's
 * "N submits per second per account" that still answers ESME_RTHROTTLED like one.
 */
export class PerSecondLimiter {
  private readonly windows = new Map<string, { second: number; count: number }>();

  /** Takes one unit for `key`; false when `limit` (0 is unlimited) is already used this second. */
  tryTake(key: string, limit: number, now = Date.now()): boolean {
    if (limit <= 0) return true;
    const second = Math.floor(now / 1000);
    const window = this.windows.get(key);
    if (!window || window.second !== second) {
      this.windows.set(key, { second, count: 1 });
      return true;
    }
    if (window.count >= limit) return false;
    window.count += 1;
    return true;
  }
}
