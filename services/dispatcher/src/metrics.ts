import type { BreakerState } from "@sms/carrier-health";
import {
  labeledCounter,
  MetricsRegistry,
  QueueMetrics,
  ReceiptIngestMetrics,
  SmppMetrics,
} from "@sms/metrics";
import type { Priority } from "@sms/queues";
import type { CarrierPool } from "./carrier-pool";
import type { CarrierHealth, SubmitResult } from "./carrier-health";
import { CarrierHealthMetrics } from "./carrier-health-metrics";
import type { BatchOutcome } from "./dispatch-batch.processor";

/** What the dispatcher reports on /metrics: the dispatch workers, carrier binds and windows, the process. */
export class DispatcherMetrics {
  readonly registry: MetricsRegistry;
  readonly contentType: string;
  readonly queues: QueueMetrics;
  readonly smpp: SmppMetrics;
  /** deliver_sm on transceiver binds (receipts stored here) and refused on transmitter binds. */
  readonly receipts: ReceiptIngestMetrics;
  private readonly messages;
  private readonly acceptedWithoutId;
  private readonly health: CarrierHealthMetrics;

  constructor(carriers: Pick<CarrierPool, "status">, registry = new MetricsRegistry()) {
    this.registry = registry;
    this.contentType = registry.contentType;
    this.queues = new QueueMetrics(registry);
    this.smpp = new SmppMetrics(registry);
    this.receipts = new ReceiptIngestMetrics(registry);
    this.messages = labeledCounter(
      registry,
      "sms_dispatch_messages_total",
      "Messages of dispatch jobs by class and outcome: sent, failed, skipped (no longer queued, or held by another job), deferred (their account's turn comes later), retried, missed_turn (their second ended before they were written: booked again)",
      ["priority", "outcome"],
    );
    this.acceptedWithoutId = labeledCounter(
      registry,
      "sms_dispatch_accepted_without_id_total",
      "Segments a carrier accepted (submit_sm_resp ESME_ROK) with an empty message_id: sent, but no receipt can match them",
      ["carrier_id"],
    );
    this.health = new CarrierHealthMetrics(registry);
    for (const bindType of ["transmitter", "transceiver"] as const)
      this.smpp.watchCarrierBinds(bindType, () =>
        Object.entries(carriers.status())
          .filter(([, status]) => status.bindType === bindType)
          .map(([carrierId, status]) => ({
            carrierId,
            configured: status.total,
            bound: status.bound,
            outstanding: status.outstanding,
            window: status.window,
          })),
      );
  }

  /** Counts what one dispatch job did with its messages. */
  countBatch(priority: Priority, outcome: BatchOutcome): void {
    for (const [name, count] of Object.entries(outcome))
      if (count > 0) this.messages.inc({ priority, outcome: name }, count);
  }

  /** Counts a segment accepted without a message_id. */
  countAcceptedWithoutId(carrierId: string): void {
    this.acceptedWithoutId.inc({ carrier_id: carrierId });
  }

  /** Reads the carriers' breakers at every scrape. */
  watchHealth(health: Pick<CarrierHealth, "latest">): void {
    this.health.watch(() =>
      health.latest().map((report) => ({
        carrierId: report.carrierId,
        state: report.record.state,
        errorRate: report.errorRate,
        submits: report.record.submits,
      })),
    );
  }

  /** Counts one submit's answer as the carrier's breaker saw it. */
  countSubmit(carrierId: string, result: SubmitResult): void {
    this.health.submits.inc({ carrier_id: carrierId, result });
  }

  /** Counts a breaker transition this replica made. */
  countTransition(carrierId: string, state: BreakerState): void {
    this.health.transitions.inc({ carrier_id: carrierId, state });
  }

  /** The /metrics text. */
  render(): Promise<string> {
    return this.registry.render();
  }
}
