import { collectDefaultMetrics, Registry } from "prom-client";

/** Every metric of the platform starts with this (the process metrics too). */
export const METRIC_PREFIX = "sms_";

/**
 * One registry per running service. Not prom-client's global one: tests start several
 * services in one process, and each must count only its own work.
 */
export class MetricsRegistry {
  readonly registry = new Registry();
  /** The exposition format's media type, for the Content-Type of /metrics. */
  readonly contentType: string = this.registry.contentType;

  /** @param options.defaultMetrics the process metrics (CPU, memory, event loop, GC); @defaultValue true */
  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true)
      collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
  }

  /** The exposition text; runs the scrape-time collectors (queue depth, message counts). */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
