import type { Logger } from "@sms/logger";

export interface Loop {
  /** Ends the loop after the tick in progress (if any); resolves when that tick has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `tick` after `firstTickAfterMs` and then `intervalMs` after each tick ends (never two
 * at once), or at once when the tick answers "again". A failing tick is logged and counted
 * through `onError`, and the loop goes on: a database or Redis outage must not stop the
 * service, only delay it. With `errorBackoffMaxMs`, failures in a row wait longer each time
 * (intervalMs doubled per failure, up to that bound) and only the first and every 50th is
 * logged, so an outage neither hammers the server nor floods the log. `tick` gets
 * `isStopping` to cut a long tick short.
 */
export function startLoop(options: {
  /** Names the loop in its log lines. */
  name: string;
  intervalMs: number;
  logger: Logger;
  /** Resolving "again" runs the next tick at once (a full batch: more is waiting). */
  tick: (isStopping: () => boolean) => Promise<unknown>;
  /** Called with each failed tick's error, after it is logged (a metric counts it). */
  onError?: (error: unknown) => void;
  /** Delay before the first tick. @defaultValue 0 */
  firstTickAfterMs?: number;
  /** Longest wait after failures in a row (doubling from intervalMs). @defaultValue no back-off */
  errorBackoffMaxMs?: number;
}): Loop {
  const { name, intervalMs, logger, tick, firstTickAfterMs = 0, errorBackoffMaxMs } = options;
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> | null = null;
  let failures = 0;
  const isStopping = () => stopping;

  const afterFailure = (error: unknown): number => {
    failures++;
    const backingOff = errorBackoffMaxMs !== undefined;
    if (!backingOff || failures === 1 || failures % 50 === 0)
      logger.warn(`${name} tick failed; will retry`, { error: String(error), failures });
    options.onError?.(error);
    return backingOff ? Math.min(errorBackoffMaxMs, intervalMs * 2 ** Math.min(failures, 8)) : intervalMs;
  };

  const run = () => {
    timer = null;
    current = tick(isStopping)
      .then((result) => {
        failures = 0;
        return result === "again" ? 0 : intervalMs;
      }, afterFailure)
      .then((nextInMs) => {
        current = null;
        if (!stopping) timer = setTimeout(run, nextInMs);
      });
  };
  timer = setTimeout(run, firstTickAfterMs);

  return {
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await current;
    },
  };
}

/** Resolves true when `promise` settles within `ms`, false otherwise (it keeps running). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
