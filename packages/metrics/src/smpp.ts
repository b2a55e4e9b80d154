import { Gauge } from "prom-client";
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

/** SMPP binds toward carriers (dispatcher, dlr-ingest). */
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
