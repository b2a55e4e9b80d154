import {
  MetricsRegistry,
  QueueMetrics,
  RateLimitMetrics,
  SmppServerMetrics,
  type RateLimitReason,
} from "@sms/metrics";

/** What the smpp-server reports on /metrics: customer binds, submits, receipts, the smpp.dlr-out worker. */
export class ServerMetrics {
  readonly registry: MetricsRegistry;
  readonly queues: QueueMetrics;
  readonly bindsAccepted;
  readonly bindsRefused;
  readonly submitsAccepted;
  readonly submitsRefused;
  readonly receiptsDelivered;
  readonly receiptsRefused;
  readonly receiptsUnanswered;
  private readonly server: SmppServerMetrics;
  private readonly rateLimits: RateLimitMetrics;

  /** @param binds customer binds open now, read at scrape time */
  constructor(binds: () => number, registry = new MetricsRegistry()) {
    this.registry = registry;
    this.contentType = registry.contentType;
    this.queues = new QueueMetrics(registry);
    this.server = new SmppServerMetrics(registry, binds);
    this.rateLimits = new RateLimitMetrics(registry);
    this.bindsAccepted = this.server.bindRequests.labels({ outcome: "accepted" });
    this.bindsRefused = this.server.bindRequests.labels({ outcome: "refused" });
    this.submitsAccepted = this.server.submits.labels({ outcome: "accepted" });
    this.submitsRefused = this.server.submits.labels({ outcome: "refused" });
    this.receiptsDelivered = this.server.receipts.labels({ outcome: "delivered" });
    this.receiptsRefused = this.server.receipts.labels({ outcome: "refused" });
    this.receiptsUnanswered = this.server.receipts.labels({ outcome: "unanswered" });
  }

  readonly contentType: string;

  /** The /metrics text. */
  render(): Promise<string> {
    return this.registry.render();
  }

  /** A submit_sm refused by the account's limits: counted as a submit and as a rate-limit rejection. */
  throttled(reason: RateLimitReason): void {
    this.server.submits.inc({ outcome: "throttled" });
    this.rateLimits.reject("smpp", reason);
  }
}
