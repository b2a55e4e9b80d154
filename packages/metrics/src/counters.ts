import { Counter } from "prom-client";
import type { MetricsRegistry } from "./registry";

/** A counter without labels in `metrics`'s registry. */
export function counter(metrics: MetricsRegistry, name: `sms_${string}_total`, help: string): Counter {
  return new Counter({ name, help, registers: [metrics.registry] });
}

/** A counter with labels, on the process's registry. */
export function labeledCounter<L extends string>(
  metrics: MetricsRegistry,
  name: `sms_${string}_total`,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [metrics.registry] });
}
