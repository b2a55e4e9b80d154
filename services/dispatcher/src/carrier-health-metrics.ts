import type { MetricsRegistry } from "@sms/metrics";
import { Counter, Gauge } from "prom-client";

/** One carrier's breaker as every dispatcher replica shares it (@sms/carrier-health). */
export interface CarrierHealthReading {
  carrierId: string;
  state: "closed" | "open" | "half_open";
  /** Failed share of the window's submits, 0 to 1. */
  errorRate: number;
  /** Submits counted in the window. */
  submits: number;
}

const STATES = ["closed", "open", "half_open"] as const;

/** The carriers' breakers and submit answers (dispatcher). */
export class CarrierHealthMetrics {
  readonly submits: Counter<"carrier_id" | "result">;
  readonly transitions: Counter<"carrier_id" | "state">;
  private read: () => CarrierHealthReading[] = () => [];

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    const read = () => this.read();
    this.submits = new Counter({
      name: "sms_carrier_submits_total",
      help: "submit_sm answers per carrier as its breaker counts them: accepted, refused (about the message: the carrier is well), failed (temporary or route-specific error), throttled, unanswered (no response in time: fate unknown), lost (connection dropped with it on the wire)",
      labelNames: ["carrier_id", "result"],
      registers,
    });
    this.transitions = new Counter({
      name: "sms_carrier_breaker_transitions_total",
      help: "Breaker transitions this process made, by the state entered (any replica may make one: sum over replicas)",
      labelNames: ["carrier_id", "state"],
      registers,
    });
    new Gauge({
      name: "sms_carrier_breaker_state",
      help: "1 for each carrier's current breaker state (closed, open, half_open), 0 for the others, as every replica shares it",
      labelNames: ["carrier_id", "state"],
      registers,
      collect() {
        this.reset();
        for (const reading of read())
          for (const state of STATES)
            this.set({ carrier_id: reading.carrierId, state }, reading.state === state ? 1 : 0);
      },
    });
    const windowGauge = (name: string, help: string, pick: (r: CarrierHealthReading) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["carrier_id"],
        registers,
        collect() {
          this.reset();
          for (const reading of read()) this.set({ carrier_id: reading.carrierId }, pick(reading));
        },
      });
    windowGauge(
      "sms_carrier_error_ratio",
      "Failed share of each carrier's submits over the breaker's window, every replica's together (0 to 1)",
      (r) => r.errorRate,
    );
    windowGauge(
      "sms_carrier_window_submits",
      "Submits counted in each carrier's breaker window, every replica's together",
      (r) => r.submits,
    );
  }

  /** Reads the breakers at every scrape. */
  watch(read: () => CarrierHealthReading[]): void {
    this.read = read;
  }
}
