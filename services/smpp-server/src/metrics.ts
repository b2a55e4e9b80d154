import { MetricsRegistry, QueueMetrics, RateLimitMetrics, type RateLimitReason } from "@sms/metrics";
import { Counter, Gauge } from "prom-client";

/** The customer-facing SMPP server (smpp-server). */
export class SmppServerMetrics {
  readonly binds: Gauge;
  readonly bindRequests: Counter<"outcome">;
  readonly submits: Counter<"outcome">;
  readonly receipts: Counter<"outcome">;

  /** @param openBinds customer binds open on this process, read at scrape time */
  constructor(metrics: MetricsRegistry, openBinds: () => number) {
    const registers = [metrics.registry];
    this.binds = new Gauge({
      name: "sms_smpp_server_binds",
      help: "Customer binds open on this process",
      registers,
      collect() {
        this.set(openBinds());
      },
    });
    this.bindRequests = new Counter({
      name: "sms_smpp_server_bind_requests_total",
      help: "Customer bind requests: outcome accepted or refused (any refusal status)",
      labelNames: ["outcome"],
      registers,
    });
    this.submits = new Counter({
      name: "sms_smpp_server_submits_total",
      help: "Customer submit_sm answered: outcome accepted (ESME_ROK), throttled (refused by the account's request rate or daily quota) or refused (any other error)",
      labelNames: ["outcome"],
      registers,
    });
    this.receipts = new Counter({
      name: "sms_smpp_server_receipts_total",
      help: "Receipts sent to customers as deliver_sm: outcome delivered (acknowledged), refused (error status) or unanswered",
      labelNames: ["outcome"],
      registers,
    });
  }
}

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
