import {
  MessageFlowMetrics,
  MessageStatusMetrics,
  MetricsRegistry,
  SchedulerLoopMetrics,
} from "@sms/metrics";
import type pg from "pg";

/** What the scheduler reports on /metrics: its loops, open messages by status, status changes relayed, the process. */
export class SchedulerMetrics extends SchedulerLoopMetrics {
  readonly registry: MetricsRegistry;
  readonly messages: MessageStatusMetrics;
  readonly flow: MessageFlowMetrics;

  constructor(pool: pg.Pool, registry = new MetricsRegistry()) {
    super(registry);
    this.registry = registry;
    this.messages = new MessageStatusMetrics(registry, pool);
    this.flow = new MessageFlowMetrics(registry);
  }
}
