import type { CarrierHealthReport } from "@sms/carrier-health";
import type { CliIo } from "./output";

/** A carrier's health as `carrier list --json` prints it; null when Redis could not be read. */
export interface CarrierHealthJson {
  /** `unreported`: no dispatcher has reported on it lately (not running, carrier disabled). */
  state: "closed" | "open" | "half_open" | "unreported";
  /** Failed share of the breaker window's submits, every dispatcher replica's together (0 to 1). */
  error_rate: number;
  window_submits: number;
  window_failures: number;
  /** When an open breaker lets probes through, ISO 8601; null unless open. */
  open_until: string | null;
  trips: number;
  /** submit_sm outstanding over every replica's bound transmitter binds, and what their windows allow. */
  window_outstanding: number;
  window_capacity: number;
  binds_bound: number;
  binds_configured: number;
}

/** The carriers' health from the dispatchers' shared record, or null for all when Redis is out of reach. */
export async function readHealth(io: CliIo, ids: string[]): Promise<Map<string, CarrierHealthJson> | null> {
  if (!io.carrierHealth || ids.length === 0) return null;
  try {
    const reports = await io.carrierHealth(ids);
    return new Map(reports.map((report) => [report.carrierId, toJson(report)]));
  } catch (error) {
    io.err(
      `warning: carrier health not read from Redis: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  }
}

function toJson(report: CarrierHealthReport): CarrierHealthJson {
  const { record } = report;
  return {
    state: report.reported ? record.state : "unreported",
    error_rate: Math.round(report.errorRate * 1000) / 1000,
    window_submits: record.submits,
    window_failures: record.failures,
    open_until: record.state === "open" ? new Date(record.until).toISOString() : null,
    trips: record.trips,
    window_outstanding: report.outstanding,
    window_capacity: report.window,
    binds_bound: report.bound,
    binds_configured: report.binds,
  };
}

/** The HEALTH, ERRORS and WINDOW USE cells of `carrier list`. */
export function healthCells(health: CarrierHealthJson | null | undefined): [string, string, string] {
  if (!health) return ["unknown", "-", "-"];
  if (health.state === "unreported") return ["unreported", "-", "-"];
  const errors =
    health.window_submits === 0
      ? "0 submits"
      : `${Math.round(health.error_rate * 100)}% of ${health.window_submits}`;
  return [health.state.replace("_", " "), errors, `${health.window_outstanding}/${health.window_capacity}`];
}
