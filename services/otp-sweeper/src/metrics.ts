import { counter, MetricsRegistry } from "@sms/metrics";

/** The otp-sweeper's sweep. */
export class OtpSweepMetrics {
  readonly sweeps: ReturnType<typeof counter>;
  readonly sweepErrors: ReturnType<typeof counter>;
  readonly expired: ReturnType<typeof counter>;
  readonly messagesFailed: ReturnType<typeof counter>;

  constructor(metrics: MetricsRegistry) {
    this.sweeps = counter(
      metrics,
      "sms_otp_sweeps_total",
      "Sweeps run (expiry, then unsendable OTP messages)",
    );
    this.sweepErrors = counter(metrics, "sms_otp_sweep_errors_total", "Sweeps that failed");
    this.expired = counter(metrics, "sms_otp_expired_total", "Pending OTPs marked expired");
    this.messagesFailed = counter(
      metrics,
      "sms_otp_messages_failed_total",
      "Queued OTP messages failed because their OTP can no longer be verified",
    );
  }
}

/** What the otp-sweeper reports on /metrics: its sweep and the process. */
export class OtpSweeperMetrics extends OtpSweepMetrics {
  readonly registry: MetricsRegistry;

  constructor(registry = new MetricsRegistry()) {
    super(registry);
    this.registry = registry;
  }
}
