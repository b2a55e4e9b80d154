import { Counter, Gauge } from "prom-client";
import type { MetricsRegistry } from "./registry";

/** One carrier's binds of one type as this process sees them now. */
export interface CarrierBindsReading {
  carrierId: string;
  /** Binds configured for the carrier. */
  configured: number;
  /** Of those, bound now. */
  bound: number;
  /** Requests sent and not yet answered, over every bound session (transmitter binds). */
  outstanding?: number;
  /** Requests the bound sessions may have outstanding at once (window size × bound). */
  window?: number;
}

/** The kinds of carrier bind: transmitters and transceivers carry submits, receivers and transceivers receipts. */
export type CarrierBindType = "transmitter" | "receiver" | "transceiver";

/** SMPP binds toward carriers (dispatcher, dlr-ingest) and from customers (smpp-server). */
export class SmppMetrics {
  readonly carrierBinds: Gauge<"carrier_id" | "bind_type" | "state">;
  readonly windowOutstanding: Gauge<"carrier_id">;
  readonly windowCapacity: Gauge<"carrier_id">;
  private readonly readers = new Map<CarrierBindType, () => CarrierBindsReading[]>();

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    const readers = this.readers;
    this.carrierBinds = new Gauge({
      name: "sms_smpp_carrier_binds",
      help: "Binds of this process toward carriers: state configured (wanted) or bound (up now)",
      labelNames: ["carrier_id", "bind_type", "state"],
      registers,
      collect() {
        this.reset();
        for (const [bindType, read] of readers)
          for (const reading of read()) {
            this.set(
              { carrier_id: reading.carrierId, bind_type: bindType, state: "configured" },
              reading.configured,
            );
            this.set({ carrier_id: reading.carrierId, bind_type: bindType, state: "bound" }, reading.bound);
          }
      },
    });
    const windowGauge = (name: string, help: string, pick: (r: CarrierBindsReading) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ["carrier_id"],
        registers,
        collect() {
          this.reset();
          const submitting = [
            ...(readers.get("transmitter")?.() ?? []),
            ...(readers.get("transceiver")?.() ?? []),
          ];
          for (const reading of submitting) {
            const value = pick(reading);
            if (value !== undefined) this.set({ carrier_id: reading.carrierId }, value);
          }
        },
      });
    this.windowOutstanding = windowGauge(
      "sms_smpp_window_outstanding",
      "submit_sm sent to a carrier and not yet answered, over this process's bound transmitter and transceiver sessions",
      (r) => r.outstanding,
    );
    this.windowCapacity = windowGauge(
      "sms_smpp_window_capacity",
      "submit_sm this process may have outstanding toward a carrier at once (window size × bound sessions)",
      (r) => r.window,
    );
  }

  /** Reads the carriers' binds of one type at every scrape. */
  watchCarrierBinds(bindType: CarrierBindType, read: () => CarrierBindsReading[]): void {
    this.readers.set(bindType, read);
  }
}

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
