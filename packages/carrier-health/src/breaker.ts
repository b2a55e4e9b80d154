/**
 * The circuit breaker of one carrier, as a pure state machine: what the shared record says now
 * and the time in, the transition (if any) out. The Redis store (store.ts) keeps the record and
 * applies a transition only if nobody changed the record meanwhile, so every dispatcher replica
 * runs this same function on the same record.
 *
 *   closed ──(window: ≥ minSubmits, failures ≥ failurePercent %)──▶ open
 *   open ──(openMs passed)──▶ half_open (probes permits)
 *   half_open ──(a probe failed)──▶ open
 *   half_open ──(probes probes succeeded)──▶ closed (the window starts afresh)
 *   half_open ──(openMs passed without a verdict: probes lost with a crash)──▶ half_open anew
 */
export type BreakerState = "closed" | "open" | "half_open";

export const BREAKER_STATES: readonly BreakerState[] = ["closed", "open", "half_open"];

export interface BreakerSettings {
  /** The rolling window of submits the error rate is read over, ms. */
  windowMs: number;
  /** Submits in the window before the rate means anything: a few failures of a quiet carrier do not open it. */
  minSubmits: number;
  /** Failed share of the window's submits (percent) that opens the breaker. */
  failurePercent: number;
  /** How long an open carrier gets no traffic before probes may go. */
  openMs: number;
  /** Submits let through while half open; all must succeed to close it. */
  probes: number;
}

/** The shared record of one carrier, as the store reads it. */
export interface BreakerRecord {
  state: BreakerState;
  /** Bumped by every transition: a transition computed on an older record is refused. */
  version: number;
  /** When the state was entered, ms (Redis clock). */
  since: number;
  /** open: when probes may start; half_open: when unresolved probes count as lost. */
  until: number;
  /** Times it opened since the record was made. */
  trips: number;
  /** Submits counted in the window: all, and those that failed (temporary error, throttled, no answer). */
  submits: number;
  failures: number;
  /** half_open: permits taken, and the verdicts of the probes so far. */
  probesTaken: number;
  probesSucceeded: number;
  probesFailed: number;
}

/** What to write: the new state and when it ends; `resetWindow` starts the window afresh. */
export interface BreakerTransition {
  state: BreakerState;
  since: number;
  until: number;
  trips: number;
  resetWindow: boolean;
  /** Why, for the log. */
  reason: string;
}

export const NEW_RECORD: BreakerRecord = {
  state: "closed",
  version: 0,
  since: 0,
  until: 0,
  trips: 0,
  submits: 0,
  failures: 0,
  probesTaken: 0,
  probesSucceeded: 0,
  probesFailed: 0,
};

/** The failed share of the window, 0 to 1 (0 without submits). */
export function errorRate(record: Pick<BreakerRecord, "submits" | "failures">): number {
  return record.submits === 0 ? 0 : record.failures / record.submits;
}

/** The transition the record calls for at `now`, or null. */
export function nextTransition(
  record: BreakerRecord,
  now: number,
  settings: BreakerSettings,
): BreakerTransition | null {
  const open = (reason: string): BreakerTransition => ({
    state: "open",
    since: now,
    until: now + settings.openMs,
    trips: record.trips + 1,
    resetWindow: false,
    reason,
  });
  switch (record.state) {
    case "closed": {
      if (record.submits < settings.minSubmits) return null;
      if (record.failures * 100 < settings.failurePercent * record.submits) return null;
      return open(`${record.failures} of ${record.submits} submits failed in the window`);
    }
    case "open":
      if (now < record.until) return null;
      return halfOpen(record, now, settings, "open time over");
    case "half_open":
      if (record.probesFailed > 0) return open("a probe failed");
      if (record.probesSucceeded >= settings.probes)
        return {
          state: "closed",
          since: now,
          until: 0,
          trips: record.trips,
          resetWindow: true,
          reason: `${record.probesSucceeded} probes succeeded`,
        };
      if (now >= record.until) return halfOpen(record, now, settings, "probes without a verdict");
      return null;
  }
}

function halfOpen(
  record: BreakerRecord,
  now: number,
  settings: BreakerSettings,
  reason: string,
): BreakerTransition {
  return {
    state: "half_open",
    since: now,
    until: now + settings.openMs,
    trips: record.trips,
    resetWindow: false,
    reason,
  };
}

/** Whether a submit may go: closed always, open never, half open only with a probe permit. */
export function admits(state: BreakerState): "yes" | "no" | "probe" {
  return state === "closed" ? "yes" : state === "open" ? "no" : "probe";
}
