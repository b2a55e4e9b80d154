/** docs/webhooks.md#delivery-and-retries: waits between attempts, 10 attempts over about three days. */
export const DEFAULT_RETRY_SCHEDULE_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  14 * 3600_000,
  20 * 3600_000,
  24 * 3600_000,
];

/** ±20%: endpoints that failed together do not all come back at the same instant. */
export const JITTER = 0.2;

/**
 * How long to wait after the `attemptsInRound`-th failed attempt, or null when that
 * was the last one. A `Retry-After` asking for longer than the schedule wins.
 */
export function nextRetryDelay(
  attemptsInRound: number,
  schedule: readonly number[],
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attemptsInRound - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return retryAfterMs === null ? jittered : Math.max(jittered, retryAfterMs);
}
