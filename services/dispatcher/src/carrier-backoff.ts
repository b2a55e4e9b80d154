/**
 * Back-off per carrier: a throttled or temporary answer pauses every submit of this
 * replica to that carrier, not only the one that got it, and an accepted submit ends the pause.
 * The pause doubles with each answer that comes after the previous pause ended (answers to
 * submits already on the wire during a pause do not compound it), up to `maxMs`.
 *
 * Per replica, not in Redis: each replica's own submits meet the carrier's answers within one
 * round trip, so it learns of the trouble as fast as a shared record would tell it, without a
 * Redis call per submit (docs/decisions.md).
 */
export class CarrierBackoff {
  private readonly paused = new Map<string, { until: number; level: number }>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs = 5000,
  ) {}

  /** A throttled or temporary answer from the carrier. */
  hit(carrierId: string, now = Date.now()): void {
    const current = this.paused.get(carrierId);
    if (current && now < current.until) return;
    const level = (current?.level ?? 0) + 1;
    const delay = Math.min(this.baseMs * 2 ** (level - 1), this.maxMs) * (0.8 + Math.random() * 0.4);
    this.paused.set(carrierId, { until: now + delay, level });
  }

  /** The carrier accepted a submit: no more pause. */
  clear(carrierId: string): void {
    this.paused.delete(carrierId);
  }

  /** How long submits to the carrier must still wait, ms (0: go). */
  remainingMs(carrierId: string, now = Date.now()): number {
    const current = this.paused.get(carrierId);
    return current ? Math.max(0, current.until - now) : 0;
  }

  /** Waits out the carrier's pause, if any (a later hit may lengthen it: waits again). */
  async wait(carrierId: string): Promise<void> {
    for (let ms = this.remainingMs(carrierId); ms > 0; ms = this.remainingMs(carrierId))
      await new Promise((resolve) => setTimeout(resolve, ms));
  }
}
