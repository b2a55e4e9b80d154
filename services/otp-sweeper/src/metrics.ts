import { counter, MetricsRegistry } from "@sms/metrics";

/** What the otp-sweeper reports on /metrics: its sweep and the process. */
export class OtpSweeperMetrics {
  readonly registry: MetricsRegistry;
  readonly sweeps: ReturnType<typeof counter>;
  readonly sweepErrors: ReturnType<typeof counter>;
  readonly expired: ReturnType<typeof counter>;
  readonly messagesFailed: ReturnType<typeof counter>;

  constructor(registry = new MetricsRegistry()) {
    this.registry = registry;
    this.sweeps = counter(
      registry,
      "sms_otp_sweeps_total",
      "Sweeps run (expiry, then unsendable OTP messages)",
    );
    this.sweepErrors = counter(registry, "sms_otp_sweep_errors_total", "Sweeps that failed");
    this.expired = counter(registry, "sms_otp_expired_total", "Pending OTPs marked expired");
    this.messagesFailed = counter(
      registry,
      "sms_otp_messages_failed_total",
      "Queued OTP messages failed because their OTP can no longer be verified",
    );
  }
}
