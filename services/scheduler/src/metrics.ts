import { MetricsRegistry, counter, labeledCounter } from "@sms/metrics";
import type pg from "pg";
import type { Counter } from "prom-client";
import { RelayMetrics } from "@sms/outbox-relay";
import { MessageStatusMetrics, OutboxMetrics } from "./message-metrics";

/** What the scheduler reports on /metrics: its loops, open messages by status, status changes relayed, the process. */
export class SchedulerMetrics {
  readonly registry: MetricsRegistry;
  readonly promoted: Counter;
  readonly promoteTicks: Counter;
  readonly promoteErrors: Counter;
  readonly reconcileTicks: Counter;
  readonly reconcileErrors: Counter;
  readonly reenqueued: Counter;
  readonly outboxRelayed: Counter;
  readonly expired: Counter;
  readonly expiryRefunds: Counter;
  readonly receiptTimeouts: Counter;
  readonly expiryErrors: Counter;
  readonly countDeltasFolded: Counter;
  readonly countErrors: Counter;
  readonly messages: MessageStatusMetrics;
  readonly flow: RelayMetrics;
  readonly outbox: OutboxMetrics;
  readonly retentionPasses: Counter;
  readonly retentionErrors: Counter;
  readonly retentionDeleted: ReturnType<typeof labeledCounter<"table">>;
  readonly retentionDroppedPartitions: ReturnType<typeof labeledCounter<"table">>;

  constructor(pool: pg.Pool, registry = new MetricsRegistry()) {
    this.registry = registry;
    this.promoted = counter(
      registry,
      "sms_scheduler_promoted_messages_total",
      "Scheduled messages moved to queued",
    );
    this.promoteTicks = counter(registry, "sms_scheduler_ticks_total", "Promotion ticks run");
    this.promoteErrors = counter(registry, "sms_scheduler_tick_errors_total", "Promotion ticks that failed");
    this.reconcileTicks = counter(registry, "sms_scheduler_reconcile_ticks_total", "Reconciler ticks run");
    this.reconcileErrors = counter(
      registry,
      "sms_scheduler_reconcile_errors_total",
      "Reconciler ticks that failed",
    );
    this.reenqueued = counter(
      registry,
      "sms_scheduler_reenqueued_messages_total",
      "Stale queued messages that no dispatch job held, enqueued again",
    );
    this.outboxRelayed = counter(
      registry,
      "sms_scheduler_outbox_relayed_total",
      "dispatch_outbox rows re-enqueued by the relay (their first hand-off to Redis did not happen)",
    );
    this.expired = counter(
      registry,
      "sms_scheduler_expired_messages_total",
      "Scheduled or queued messages failed EXPIRED by the validity sweep (their validity ended before they reached a carrier)",
    );
    this.expiryRefunds = counter(
      registry,
      "sms_scheduler_expired_refunded_credits_total",
      "Credits returned with messages failed EXPIRED by the validity sweep",
    );
    this.receiptTimeouts = counter(
      registry,
      "sms_scheduler_receipt_timeouts_total",
      "Sent messages failed RECEIPT_TIMEOUT (no final receipt within their validity plus the grace)",
    );
    this.expiryErrors = counter(
      registry,
      "sms_scheduler_expiry_errors_total",
      "Ticks of the validity and receipt-timeout sweeps that failed",
    );
    this.countDeltasFolded = counter(
      registry,
      "sms_scheduler_message_count_deltas_folded_total",
      "Status-change deltas folded into the per-account message counts (what the dashboard overview reads)",
    );
    this.countErrors = counter(
      registry,
      "sms_scheduler_message_counts_errors_total",
      "Ticks of the message-counts fold that failed",
    );
    this.messages = new MessageStatusMetrics(registry, pool);
    this.flow = new RelayMetrics(registry);
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
      "Day and week partitions dropped whole past retention, by table",
      ["table"],
    );
  }
}
