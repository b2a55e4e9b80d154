import { MetricsRegistry, QueueMetrics, SmppMetrics } from "@sms/metrics";
import type { CarrierPool } from "./carrier-pool";

/** What the dispatcher reports on /metrics: the sms.dispatch worker, carrier binds and windows, the process. */
export class DispatcherMetrics {
  readonly registry: MetricsRegistry;
  readonly contentType: string;
  readonly queues: QueueMetrics;
  readonly smpp: SmppMetrics;

  constructor(carriers: Pick<CarrierPool, "status">, registry = new MetricsRegistry()) {
    this.registry = registry;
    this.contentType = registry.contentType;
    this.queues = new QueueMetrics(registry);
    this.smpp = new SmppMetrics(registry);
    this.smpp.watchCarrierBinds("transmitter", () =>
      Object.entries(carriers.status()).map(([carrierId, status]) => ({
        carrierId,
        configured: status.total,
        bound: status.bound,
        outstanding: status.outstanding,
        window: status.window,
      })),
    );
  }

  /** The /metrics text. */
  render(): Promise<string> {
    return this.registry.render();
  }
}
