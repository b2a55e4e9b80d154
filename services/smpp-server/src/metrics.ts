/** The smpp-server's counters and gauges, rendered in the Prometheus text format on /metrics. */
export class ServerMetrics {
  bindsAccepted = 0;
  bindsRefused = 0;
  submitsAccepted = 0;
  submitsRefused = 0;
  submitsThrottled = 0;
  receiptsDelivered = 0;
  receiptsRefused = 0;
  receiptsUnanswered = 0;
  /** Current binds, read when rendered. */
  constructor(private readonly binds: () => number) {}

  render(): string {
    const lines: string[] = [];
    const metric = (type: "counter" | "gauge", name: string, help: string, value: number) =>
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
    metric("gauge", "smpp_binds", "Customer binds open on this process.", this.binds());
    metric("counter", "smpp_binds_accepted_total", "Binds accepted.", this.bindsAccepted);
    metric("counter", "smpp_binds_refused_total", "Binds refused (any status).", this.bindsRefused);
    metric("counter", "smpp_submits_accepted_total", "submit_sm answered ESME_ROK.", this.submitsAccepted);
    metric("counter", "smpp_submits_refused_total", "submit_sm answered with an error.", this.submitsRefused);
    metric(
      "counter",
      "smpp_submits_throttled_total",
      "submit_sm answered ESME_RTHROTTLED.",
      this.submitsThrottled,
    );
    metric(
      "counter",
      "smpp_receipts_delivered_total",
      "Receipts acknowledged by customers.",
      this.receiptsDelivered,
    );
    metric(
      "counter",
      "smpp_receipts_refused_total",
      "Receipts answered with an error status.",
      this.receiptsRefused,
    );
    metric(
      "counter",
      "smpp_receipts_unanswered_total",
      "Receipts with no answer in time.",
      this.receiptsUnanswered,
    );
    return `${lines.join("\n")}\n`;
  }
}
