/** How reconnect delays grow. */
export interface BackoffOptions {
  /** First delay. @defaultValue 500 */
  initialMs?: number;
  /** Ceiling of the delay. @defaultValue 30000 */
  maxMs?: number;
  /** Growth per attempt. @defaultValue 2 */
  factor?: number;
  /** Share of the delay that is random, 0..1 (1 is "full jitter"). @defaultValue 0.5 */
  jitter?: number;
}

/**
 * Delay before reconnect attempt `attempt` (0-based): exponential, capped, with jitter
 * so a fleet of dispatchers does not reconnect to a recovering carrier in lockstep.
 */
export function computeBackoff(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const { initialMs = 500, maxMs = 30000, factor = 2, jitter = 0.5 } = options;
  const base = Math.min(maxMs, initialMs * factor ** Math.max(0, attempt));
  const spread = base * Math.min(1, Math.max(0, jitter));
  return Math.round(base - spread + random() * spread);
}
