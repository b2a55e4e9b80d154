import { collectDefaultMetrics, Registry } from "prom-client";
import { isClusterWorker, joinClusterMetrics } from "./cluster";

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

  private readonly renderText: () => Promise<string>;

  /**
   * @param options.defaultMetrics the process metrics (CPU, memory, event loop, GC); @defaultValue true
   * @param options.clusterWide in a node:cluster worker, answer for every worker (summed by the primary, see serveClusterMetrics); @defaultValue false
   */
  constructor(options: { defaultMetrics?: boolean; clusterWide?: boolean } = {}) {
    if (options.defaultMetrics ?? true)
      collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
    this.renderText =
      options.clusterWide && isClusterWorker()
        ? joinClusterMetrics(this.registry)
        : () => this.registry.metrics();
  }

  /** The exposition text; runs the scrape-time collectors (queue depth, message counts). */
  render(): Promise<string> {
    return this.renderText();
  }
}
