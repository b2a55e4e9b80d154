import { MetricsRegistry, OtpSweepMetrics } from "@sms/metrics";

/** What the otp-sweeper reports on /metrics: its sweep and the process. */
export class OtpSweeperMetrics extends OtpSweepMetrics {
  readonly registry: MetricsRegistry;

  constructor(registry = new MetricsRegistry()) {
    super(registry);
    this.registry = registry;
  }
}
