import { MessageStatusMetrics, MetricsRegistry, SchedulerLoopMetrics } from "@sms/metrics";
import type pg from "pg";

/** What the scheduler reports on /metrics: its loops, the backlog of open messages, the process. */
export class SchedulerMetrics extends SchedulerLoopMetrics {
  readonly registry: MetricsRegistry;
  readonly messages: MessageStatusMetrics;

  constructor(pool: pg.Pool, registry = new MetricsRegistry()) {
    super(registry);
    this.registry = registry;
    this.messages = new MessageStatusMetrics(registry, pool);
  }
}
