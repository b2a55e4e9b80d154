import {
  MessageFlowMetrics,
  MessageStatusMetrics,
  OutboxMetrics,
  MetricsRegistry,
  SchedulerLoopMetrics,
  counter,
  labeledCounter,
} from "@sms/metrics";
import type pg from "pg";

/** What the scheduler reports on /metrics: its loops, open messages by status, status changes relayed, the process. */
export class SchedulerMetrics extends SchedulerLoopMetrics {
  readonly registry: MetricsRegistry;
  readonly messages: MessageStatusMetrics;
  readonly flow: MessageFlowMetrics;
  readonly outbox: OutboxMetrics;
  readonly retentionPasses: ReturnType<typeof counter>;
  readonly retentionErrors: ReturnType<typeof counter>;
  readonly retentionDeleted: ReturnType<typeof labeledCounter<"table">>;
  readonly retentionDroppedPartitions: ReturnType<typeof labeledCounter<"table">>;

  constructor(pool: pg.Pool, registry = new MetricsRegistry()) {
    super(registry);
    this.registry = registry;
    this.messages = new MessageStatusMetrics(registry, pool);
    this.flow = new MessageFlowMetrics(registry);
    this.outbox = new OutboxMetrics(registry, pool);
    this.retentionPasses = counter(
      registry,
      "sms_scheduler_retention_passes_total",
      "Retention passes run (by the replica holding the retention lock)",
    );
    this.retentionErrors = counter(
      registry,
      "sms_scheduler_retention_errors_total",
      "Retention passes that failed",
    );
    this.retentionDeleted = labeledCounter(
      registry,
      "sms_scheduler_retention_deleted_total",
      "Rows deleted past retention, by table",
      ["table"],
    );
    this.retentionDroppedPartitions = labeledCounter(
      registry,
      "sms_scheduler_retention_dropped_partitions_total",
      "Day partitions dropped whole past retention, by table",
      ["table"],
    );
  }
}
