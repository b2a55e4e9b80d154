import type { Counter, Gauge } from "prom-client";

/**
 * The current value of a metric: the sum over its series whose labels include `labels`.
 * For checks in tests and in-process readers; Prometheus reads /metrics.
 */
export async function metricValue(
  metric: Pick<Counter | Gauge, "get">,
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await metric.get();
  return values
    .filter((value) => Object.entries(labels).every(([key, wanted]) => String(value.labels[key]) === wanted))
    .reduce((sum, value) => sum + value.value, 0);
}
