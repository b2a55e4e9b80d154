import { MetricsRegistry, QueueMetrics, WebhookMetrics } from "@sms/metrics";

/** What webhook-delivery reports on /metrics: the webhook.deliver worker, every attempt's outcome, the process. */
export class WebhookDeliveryMetrics {
  readonly registry: MetricsRegistry;
  readonly contentType: string;
  readonly queues: QueueMetrics;
  readonly webhooks: WebhookMetrics;

  constructor(registry = new MetricsRegistry()) {
    this.registry = registry;
    this.contentType = registry.contentType;
    this.queues = new QueueMetrics(registry);
    this.webhooks = new WebhookMetrics(registry);
  }

  /** The /metrics text. */
  render(): Promise<string> {
    return this.registry.render();
  }
}
