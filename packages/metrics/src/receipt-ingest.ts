import { Counter } from "prom-client";
import type { MetricsRegistry } from "./registry";

/** Carrier receipts and inbound messages taken in by dlr-ingest, and by the dispatcher on its transceiver binds. */
export class ReceiptIngestMetrics {
  readonly deliverSm: Counter<"kind" | "carrier_id">;
  readonly receiptsStored: Counter<"source" | "outcome">;
  readonly receiptErrors: Counter<"source">;
  readonly sweepSettled: Counter<"outcome">;
  readonly inbound: Counter<"outcome">;
  readonly inboundTimedOut: Counter;
  readonly inboundHttp: Counter<"outcome">;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.deliverSm = new Counter({
      name: "sms_dlr_deliver_sm_total",
      help: "deliver_sm received from carriers, by kind: receipt, mo, unreadable_receipt, refused_shutting_down, refused_transmitter_bind (a carrier sending receipts on a transmitter bind: it wants transceivers)",
      labelNames: ["kind", "carrier_id"],
      registers,
    });
    this.receiptsStored = new Counter({
      name: "sms_dlr_receipts_total",
      help: "Receipts stored, by source (smpp, http) and outcome (applied, ignored, unmatched, …)",
      labelNames: ["source", "outcome"],
      registers,
    });
    this.receiptErrors = new Counter({
      name: "sms_dlr_receipt_errors_total",
      help: "Receipts not stored (the carrier is asked to redeliver), by source",
      labelNames: ["source"],
      registers,
    });
    this.sweepSettled = new Counter({
      name: "sms_dlr_sweep_settled_total",
      help: "Unmatched receipts the sweep settled, by outcome (applied, ignored)",
      labelNames: ["outcome"],
      registers,
    });
    this.inbound = new Counter({
      name: "sms_inbound_total",
      help: "Inbound deliver_sm (not receipts) by outcome: assigned (stored for the account owning the destination), unassigned (nobody owns it: stored, account NULL), part_waiting, duplicate_part (a redelivered part, acknowledged, not stored again), error (not stored; the carrier is asked to redeliver)",
      labelNames: ["outcome"],
      registers,
    });
    this.inboundTimedOut = new Counter({
      name: "sms_inbound_incomplete_total",
      help: "Concatenated inbound messages stored incomplete: their group timed out (INBOUND_PART_TIMEOUT_MS) before every part arrived",
      registers,
    });
    this.inboundHttp = new Counter({
      name: "sms_inbound_http_total",
      help: "Inbound messages carriers posted to POST /v1/carriers/{id}/inbound that passed authentication and validation, by outcome: assigned, unassigned, part_waiting, duplicate_part, duplicate (a message_id already stored: answered, not stored again), error (not stored; the carrier is answered 503)",
      labelNames: ["outcome"],
      registers,
    });
  }
}
