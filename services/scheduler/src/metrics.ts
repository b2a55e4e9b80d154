import {
  MessageFlowMetrics,
  MessageStatusMetrics,
  OutboxMetrics,
  MetricsRegistry,
  SchedulerLoopMetrics,
} from "@sms/metrics";
import type pg from "pg";

/** What the scheduler reports on /metrics: its loops, open messages by status, status changes relayed, the process. */
export class SchedulerMetrics extends SchedulerLoopMetrics {
  readonly registry: MetricsRegistry;
  readonly messages: MessageStatusMetrics;
  readonly flow: MessageFlowMetrics;
  readonly outbox: OutboxMetrics;

  constructor(pool: pg.Pool, registry = new MetricsRegistry()) {
    super(registry);
    this.registry = registry;
    this.messages = new MessageStatusMetrics(registry, pool);
    this.flow = new MessageFlowMetrics(registry);
    this.outbox = new OutboxMetrics(registry, pool);
  }
}
