import express, { type Router } from "express";
import { listReportedCarriers, readCarrierHealth, type CarrierHealthReport } from "@sms/carrier-health";
import type { Redis } from "@sms/redis";

/** One row of the carriers page (and of /carriers.json). */
export interface CarrierHealthRow {
  carrier_id: string;
  state: "closed" | "open" | "half_open";
  /** Failed share of the breaker window's submits, every dispatcher replica's together (0 to 1). */
  error_rate: number;
  window_submits: number;
  open_until: string | null;
  trips: number;
  window_outstanding: number;
  window_capacity: number;
  binds_bound: number;
  binds_configured: number;
  /** Dispatcher replicas that reported their binds lately. */
  replicas: number;
}

/**
 * The carriers' health as the dispatchers share it in Redis (the console has no database: it
 * lists the carriers a dispatcher reported on within a day). /carriers is a plain page that
 * refreshes itself every 5 s; /carriers.json the same rows.
 */
export function carrierHealthRouter(redis: Redis, prefix: string): Router {
  const rows = async (): Promise<CarrierHealthRow[]> =>
    (await readCarrierHealth(redis, prefix, await listReportedCarriers(redis, prefix))).map(toRow);
  const router = express.Router();
  router.get("/carriers.json", async (_request, response) => {
    response.json({ carriers: await rows() });
  });
  router.get("/carriers", async (_request, response) => {
    response.type("html").send(page(await rows()));
  });
  return router;
}

function toRow(report: CarrierHealthReport): CarrierHealthRow {
  const { record } = report;
  return {
    carrier_id: report.carrierId,
    state: record.state,
    error_rate: Math.round(report.errorRate * 1000) / 1000,
    window_submits: record.submits,
    open_until: record.state === "open" ? new Date(record.until).toISOString() : null,
    trips: record.trips,
    window_outstanding: report.outstanding,
    window_capacity: report.window,
    binds_bound: report.bound,
    binds_configured: report.binds,
    replicas: report.replicas.length,
  };
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(rows: CarrierHealthRow[]): string {
  const cells = (row: CarrierHealthRow) =>
    [
      row.carrier_id,
      row.state.replace("_", " ") + (row.open_until ? ` until ${row.open_until}` : ""),
      row.window_submits === 0
        ? "0 submits"
        : `${Math.round(row.error_rate * 100)}% of ${row.window_submits}`,
      `${row.window_outstanding}/${row.window_capacity}`,
      `${row.binds_bound}/${row.binds_configured}`,
      String(row.trips),
    ]
      .map((cell) => `<td>${escape(cell)}</td>`)
      .join("");
  const body =
    rows.length === 0
      ? `<p>No dispatcher has reported on a carrier lately.</p>`
      : `<table><thead><tr><th>carrier</th><th>breaker</th><th>errors (window)</th><th>window use</th><th>binds</th><th>trips</th></tr></thead>
<tbody>${rows.map((row) => `<tr class="${row.state}">${cells(row)}</tr>`).join("\n")}</tbody></table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>Carriers · SMS platform operations</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{padding:.3rem .8rem;border-bottom:1px solid #ddd;text-align:left}tr.open td{background:#fdd}tr.half_open td{background:#ffd}</style>
</head><body><h1>Carriers</h1><p><a href="./">Queues</a></p>${body}</body></html>`;
}
