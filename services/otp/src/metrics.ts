/** The OTP service's counters, rendered in the Prometheus text format on /metrics. */
export class OtpServiceMetrics {
  sweeps = 0;
  sweepErrors = 0;
  expired = 0;
  messagesFailed = 0;

  render(): string {
    const lines: string[] = [];
    const counter = (name: string, help: string, value: number) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    };
    counter("otp_sweeps_total", "Sweeps run (expiry, then unsendable OTP messages).", this.sweeps);
    counter("otp_sweep_errors_total", "Sweeps that failed.", this.sweepErrors);
    counter("otp_expired_total", "Pending OTPs marked expired.", this.expired);
    counter(
      "otp_messages_failed_total",
      "Queued OTP messages failed because their OTP can no longer be verified.",
      this.messagesFailed,
    );
    return `${lines.join("\n")}\n`;
  }
}
