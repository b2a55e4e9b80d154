import { HttpMetrics, labeledCounter, MetricsRegistry, RateLimitMetrics } from "@sms/metrics";

/** What the gateway reports on /metrics: request latency by route and status, rate-limit refusals, the process. */
export class GatewayMetrics {
  readonly registry: MetricsRegistry;
  readonly contentType: string;
  readonly http: HttpMetrics;
  readonly rateLimits: RateLimitMetrics;
  /** OTPs refused by the pumping guard, by destination country: alert when it rises. */
  readonly otpPumpingRefusals: ReturnType<typeof labeledCounter<"country">>;

  /** In cluster mode (GATEWAY_WORKERS > 1) a scrape answers for every worker: see serveClusterMetrics in main.ts. */
  constructor(registry = new MetricsRegistry({ clusterWide: true })) {
    this.registry = registry;
    this.contentType = registry.contentType;
    this.http = new HttpMetrics(registry);
    this.rateLimits = new RateLimitMetrics(registry);
    this.otpPumpingRefusals = labeledCounter(
      registry,
      "sms_otp_pumping_refusals_total",
      "OTPs refused because their destination range had many sends and few verified codes in the last hour (SMS pumping), by destination country",
      ["country"],
    );
  }

  /** The /metrics text. */
  render(): Promise<string> {
    return this.registry.render();
  }
}
