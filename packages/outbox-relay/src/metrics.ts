import type { MetricsRegistry } from "@sms/metrics";
import { Counter } from "prom-client";
import type { RelayResult } from "./relay";

/**
 * Status changes, counted where each one is published exactly once: the event relay
 * claims every outbox event once across its replicas (SKIP LOCKED), so the sum over
 * replicas is the platform's flow of messages into each status, without a counter in
 * the hot, set-based paths that change statuses. Reported by every process that runs a relay:
 * the scheduler, and webhook-delivery's high lane (EVENT_RELAY_HIGH).
 */
export class RelayMetrics {
  readonly statusChanges: Counter<"status">;
  readonly published: Counter<"kind">;
  readonly passes: Counter;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.statusChanges = new Counter({
      name: "sms_message_status_changes_total",
      help: "Messages that entered a status (queued, sent, delivered, failed), counted when the event relay publishes the change (once per change, over every replica)",
      labelNames: ["status"],
      registers,
    });
    this.published = new Counter({
      name: "sms_event_relay_published_total",
      help: "What the event relay published: kind event (outbox events claimed), webhook_delivery (deliveries queued), smpp_receipt (smpp.dlr-out jobs)",
      labelNames: ["kind"],
      registers,
    });
    this.passes = new Counter({
      name: "sms_event_relay_passes_total",
      help: "Event relay passes that completed (with or without events): a relay that stopped passing is stuck or failing",
      registers,
    });
  }

  /** Counts one relay pass. */
  record(batch: RelayResult): void {
    this.passes.inc();
    if (batch.events === 0) return;
    for (const [status, count] of Object.entries(batch.statuses)) this.statusChanges.inc({ status }, count);
    this.published.inc({ kind: "event" }, batch.events);
    if (batch.webhooks > 0) this.published.inc({ kind: "webhook_delivery" }, batch.webhooks);
    if (batch.smppReceipts > 0) this.published.inc({ kind: "smpp_receipt" }, batch.smppReceipts);
  }
}
