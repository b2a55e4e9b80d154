import { MetricsRegistry, OtpSweepMetrics } from "@sms/metrics";

/** What the OTP service reports on /metrics: its sweep and the process. */
export class OtpServiceMetrics extends OtpSweepMetrics {
  readonly registry: MetricsRegistry;

  constructor(registry = new MetricsRegistry()) {
    super(registry);
    this.registry = registry;
  }
}
