/** The scheduler's counters, rendered in the Prometheus text format on /metrics. */
export class SchedulerMetrics {
  promoted = 0;
  promoteTicks = 0;
  promoteErrors = 0;
  reconcileTicks = 0;
  reconcileErrors = 0;
  reenqueued = 0;
  outboxRelayed = 0;

  render(): string {
    const lines: string[] = [];
    const counter = (name: string, help: string, value: number, labels = "") => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name}${labels} ${value}`);
    };
    counter("scheduler_promoted_messages_total", "Scheduled messages moved to queued.", this.promoted);
    counter("scheduler_ticks_total", "Promotion ticks run.", this.promoteTicks);
    counter("scheduler_tick_errors_total", "Promotion ticks that failed.", this.promoteErrors);
    counter("scheduler_reconcile_ticks_total", "Reconciler ticks run.", this.reconcileTicks);
    counter("scheduler_reconcile_errors_total", "Reconciler ticks that failed.", this.reconcileErrors);
    counter(
      "scheduler_reenqueued_messages_total",
      "Stale queued messages handed to sms.dispatch again (a no-op while their job exists).",
      this.reenqueued,
    );
    counter(
      "scheduler_outbox_relayed_total",
      "dispatch_outbox rows re-enqueued by the relay.",
      this.outboxRelayed,
    );
    return `${lines.join("\n")}\n`;
  }
}
