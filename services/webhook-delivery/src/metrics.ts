import { MetricsRegistry, QueueMetrics } from "@sms/metrics";
import { RelayMetrics } from "@sms/outbox-relay";
import { Counter, Histogram } from "prom-client";

/** What the instrumentation reads of a webhook attempt's result. */
export interface WebhookAttemptResult {
  outcome: "success" | "gone" | "failure";
  statusCode: number | null;
  latencyMs: number;
}

/** Webhook POSTs made by this process (webhook-delivery). */
export class WebhookMetrics {
  readonly attempts: Counter<"outcome" | "status_class">;
  readonly attemptDuration: Histogram<"outcome">;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.attempts = new Counter({
      name: "sms_webhook_attempts_total",
      help: "Webhook POSTs by outcome (success: 2xx; gone: 410, the endpoint is disabled; failure: anything else, retried) and status class (2xx…5xx, or none: timeout, refused, blocked address)",
      labelNames: ["outcome", "status_class"],
      registers,
    });
    this.attemptDuration = new Histogram({
      name: "sms_webhook_attempt_duration_seconds",
      help: "Time from connecting to the customer's endpoint to its answer (or the failure), by outcome",
      labelNames: ["outcome"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers,
    });
  }

  /** Counts one attempt. */
  record(result: WebhookAttemptResult): void {
    const statusClass = result.statusCode === null ? "none" : `${Math.floor(result.statusCode / 100)}xx`;
    this.attempts.inc({ outcome: result.outcome, status_class: statusClass });
    this.attemptDuration.observe({ outcome: result.outcome }, result.latencyMs / 1000);
  }

  /** The same sender, counting every attempt it makes. */
  instrumentSender<S extends { send(request: never): Promise<WebhookAttemptResult> }>(sender: S): S {
    const send = (async (request: never) => {
      const result = await sender.send(request);
      this.record(result);
      return result;
    }) as S["send"];
    return { ...sender, send };
  }
}

/** What webhook-delivery reports on /metrics: the webhook.deliver workers, every attempt's outcome, the relay of high events where it runs one, the process. */
export class WebhookDeliveryMetrics {
  readonly registry: MetricsRegistry;
  readonly contentType: string;
  readonly queues: QueueMetrics;
  readonly webhooks: WebhookMetrics;
  /** Only in a process that runs a relay (EVENT_RELAY_HIGH): elsewhere its pass counter would read as a stuck relay. */
  readonly relay?: RelayMetrics;

  constructor(options: { relay?: boolean } = {}, registry = new MetricsRegistry()) {
    this.registry = registry;
    this.contentType = registry.contentType;
    this.queues = new QueueMetrics(registry);
    this.webhooks = new WebhookMetrics(registry);
    if (options.relay) this.relay = new RelayMetrics(registry);
  }

  /** The /metrics text. */
  render(): Promise<string> {
    return this.registry.render();
  }
}
