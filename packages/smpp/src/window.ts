import type { Pdu } from "./codec";
import { WeightedFifo } from "./weighted-fifo";
import { ConnectionLostError, NotBoundError, ResponseTimeoutError } from "./errors";

interface InFlight {
  command: string;
  counted: boolean;
  timer: NodeJS.Timeout;
  resolve: (pdu: Pdu) => void;
  reject: (error: Error) => void;
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Weights of the waiting classes 0 (high), 1 (normal) and 2 (bulk) for a free slot. */
const CLASS_WEIGHTS = [6, 3, 1];

/**
 * The requests one connection has written and not yet had answered, keyed by
 * sequence_number. At most `size` counted requests are outstanding (SMPP 3.4 §2.10
 * leaves the window to the peers' agreement; carriers refuse or throttle beyond it);
 * callers wait in `acquire()` for a slot, first come first served within their class,
 * the classes weighted 6 : 3 : 1, so an OTP overtakes a campaign's queued submits
 * while the campaign still moves.
 */
export class RequestWindow {
  private readonly inFlight = new Map<number, InFlight>();
  private readonly waiters = new WeightedFifo<Waiter>(CLASS_WEIGHTS);
  private slotsTaken = 0;
  private idleWaiters: Array<() => void> = [];
  private closedWith: Error | undefined;

  constructor(
    /** Largest number of counted requests outstanding at once. */
    readonly size: number,
    /** How long a request waits for its response. */
    private readonly responseTimeoutMs: number,
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`window size must be a positive integer, got ${size}`);
  }

  /** Requests written and not yet answered (counted or not). */
  get outstanding(): number {
    return this.inFlight.size;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Resolves once no request is outstanding (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves when a slot is free; the caller then `track()`s a request or `release()`s the slot.
   * @param cls 0 high, 1 normal, 2 bulk; @defaultValue 1
   */
  acquire(cls = 1): Promise<void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (this.slotsTaken < this.size) {
      this.slotsTaken += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }, cls));
  }

  /** Gives back a slot that was acquired but not used, or whose request ended. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next.resolve();
    else this.slotsTaken = Math.max(0, this.slotsTaken - 1);
  }

  /**
   * Tracks a request just written; resolves with its response PDU (whatever its
   * command_status) or rejects with ResponseTimeoutError. `counted: false` is for
   * link housekeeping (enquire_link, unbind) that holds no slot.
   */
  track(sequenceNumber: number, command: string, counted = true): Promise<Pdu> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.inFlight.delete(sequenceNumber)) return;
        if (counted) this.release();
        this.notifyIfIdle();
        reject(new ResponseTimeoutError(command, sequenceNumber, this.responseTimeoutMs));
      }, this.responseTimeoutMs);
      this.inFlight.set(sequenceNumber, { command, counted, timer, resolve, reject });
    });
  }

  /** Hands a response (or generic_nack) to its request; false when nothing waits for that sequence number. */
  settle(response: Pdu): boolean {
    const entry = this.inFlight.get(response.sequence_number);
    if (!entry) return false;
    this.inFlight.delete(response.sequence_number);
    clearTimeout(entry.timer);
    if (entry.counted) this.release();
    this.notifyIfIdle();
    entry.resolve(response);
    return true;
  }

  /**
   * The connection is gone: in-flight requests reject with ConnectionLostError (outcome
   * unknown), waiters with NotBoundError (never written), and so does every later acquire().
   */
  close(reason = "connection closed"): void {
    if (this.closedWith) return;
    this.closedWith = new NotBoundError(reason);
    for (const [sequenceNumber, entry] of this.inFlight) {
      clearTimeout(entry.timer);
      entry.reject(new ConnectionLostError(entry.command, sequenceNumber));
    }
    this.inFlight.clear();
    for (const waiter of this.waiters.drain()) waiter.reject(this.closedWith);
    this.slotsTaken = 0;
    this.notifyIfIdle();
  }

  private notifyIfIdle(): void {
    if (this.inFlight.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
