export interface FailureThrottleOptions {
  /** Failed checks an address may make before it has to wait. */
  freeFailures: number;
  /** The longest wait; each failure past the free ones doubles it, from 1 s up to this. */
  maxDelayMs: number;
  /** Addresses remembered; past this the oldest is forgotten. @defaultValue 10000 */
  maxTracked?: number;
  now?: () => number;
}

interface Entry {
  failures: number;
  blockedUntil: number;
  lastAt: number;
}

const FIRST_DELAY_MS = 1_000;
/** An address that has not failed for this long starts again from nothing. */
const FORGET_AFTER_MS = 15 * 60_000;

/**
 * Counts failed credential checks per client address, so a client cannot make us run scrypt
 * without end. A check is counted as failed when it starts, before the
 * scrypt, and cleared when it passes: parallel tries from one address each see the others,
 * so at most `freeFailures` hashes run before the address has to wait.
 */
export class FailureThrottle {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly maxTracked: number;

  constructor(private readonly options: FailureThrottleOptions) {
    this.now = options.now ?? Date.now;
    this.maxTracked = options.maxTracked ?? 10_000;
  }

  /** How long the address must wait before another check; 0 when it may check now. */
  waitMs(client: string): number {
    const entry = this.current(client);
    return entry ? Math.max(0, entry.blockedUntil - this.now()) : 0;
  }

  /** A check starts: counted as a failure until `passed` says otherwise. */
  begin(client: string): void {
    const now = this.now();
    const entry = this.current(client) ?? { failures: 0, blockedUntil: 0, lastAt: now };
    entry.failures += 1;
    entry.lastAt = now;
    const over = entry.failures - this.options.freeFailures;
    if (over >= 0) {
      entry.blockedUntil = now + Math.min(FIRST_DELAY_MS * 2 ** Math.min(over, 30), this.options.maxDelayMs);
    }
    // Re-inserted, so the Map's order is least recently failed first.
    this.entries.delete(client);
    if (this.entries.size >= this.maxTracked) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(client, entry);
  }

  passed(client: string): void {
    this.entries.delete(client);
  }

  private current(client: string): Entry | undefined {
    const entry = this.entries.get(client);
    if (entry && this.now() - entry.lastAt > Math.max(FORGET_AFTER_MS, this.options.maxDelayMs)) {
      this.entries.delete(client);
      return undefined;
    }
    return entry;
  }
}
