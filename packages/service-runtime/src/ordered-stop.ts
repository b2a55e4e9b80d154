import type { Logger } from "@sms/logger";
import { settlesWithin } from "./loop";

/** What each stop step gets of the one shutdown bound. */
export interface ShutdownBound {
  /** Milliseconds left before the bound (0 once it has passed). */
  left(): number;
  /** True when `promise` settles before the bound; false otherwise (it keeps running). */
  within(promise: Promise<unknown>): Promise<boolean>;
}

/** One step of a service's stop(), named for the debug log. */
export interface StopStep {
  name: string;
  run(bound: ShutdownBound): unknown;
}

/**
 * A service's stop(): its steps run one after another, in the order given, under one bound
 * of `timeoutMs` counted from the first call, each step given what is left of it. Calling
 * it again returns the first call's promise. A step that throws ends the stop with its
 * error (runService then exits 1); a step that must not, catches.
 */
export function orderedStop(options: {
  timeoutMs: number;
  logger: Logger;
  steps: StopStep[];
}): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  const run = async () => {
    const deadline = Date.now() + options.timeoutMs;
    const left = () => Math.max(0, deadline - Date.now());
    // A timer can fire a millisecond before Date.now() reaches the deadline: wait out what is
    // left, so "not within" always means left() is 0 (2 unit runs in 15 saw left() 1).
    const within = async (promise: Promise<unknown>) => {
      for (;;) {
        if (await settlesWithin(promise, left())) return true;
        if (left() === 0) return false;
      }
    };
    const bound: ShutdownBound = { left, within };
    for (const step of options.steps) {
      options.logger.debug("stopping", { step: step.name });
      await step.run(bound);
    }
  };
  return () => (stopping ??= run());
}
