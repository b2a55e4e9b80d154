import type { Logger } from "@sms/logger";

export interface Loop {
  /** Ends the loop after the tick in progress (if any); resolves when that tick has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `tick` after `firstTickAfterMs` and then `intervalMs` after each tick ends (never two
 * at once). A failing tick is logged and counted through `onError`, and the loop goes on: a
 * database or Redis outage must not stop the service, only delay it. `tick` gets
 * `isStopping` to cut a long tick short.
 */
export function startLoop(options: {
  /** Names the loop in its log lines. */
  name: string;
  intervalMs: number;
  logger: Logger;
  tick: (isStopping: () => boolean) => Promise<unknown>;
  /** Called with each failed tick's error, after it is logged (a metric counts it). */
  onError?: (error: unknown) => void;
  /** Delay before the first tick. @defaultValue 0 */
  firstTickAfterMs?: number;
}): Loop {
  const { name, intervalMs, logger, tick, firstTickAfterMs = 0 } = options;
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> | null = null;
  const isStopping = () => stopping;

  const run = () => {
    timer = null;
    current = tick(isStopping)
      .then(
        () => undefined,
        (error: unknown) => {
          logger.warn(`${name} tick failed; will retry`, { error: String(error) });
          options.onError?.(error);
        },
      )
      .finally(() => {
        current = null;
        if (!stopping) timer = setTimeout(run, intervalMs);
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
