import type { CarrierHealthReport } from "@sms/carrier-health";
import type { Command } from "commander";
import type { Database } from "@sms/db";
import type { WebhookIo } from "./webhook-io";

/** What a command needs from the outside world; tests pass their own. */
export interface CliIo {
  db: Database;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Base URL of the REST gateway, for printed curl lines. */
  gatewayUrl: string;
  /** Base URL of the customer dashboard, for printed invite links. */
  dashboardUrl: string;
  /** Where customers bind to our smpp-server (host:port), for the SMPP line the demo prints. */
  smppServerAddress: string;
  /** Where the local carrier simulator listens for SMPP binds (the demo's "simulator" carrier). */
  simulatorSmpp: { host: string; port: number };
  /** The dispatchers' carrier health record in Redis (breakers, error rates, window use); absent: not shown. */
  carrierHealth?: (carrierIds: string[]) => Promise<CarrierHealthReport[]>;
  /** Webhook settings, sender and queue; built on first use (they need SECRET_ENCRYPTION_KEY, Redis). */
  webhooks: () => WebhookIo;
}

/** A command's result: the JSON value printed with --json, and the lines a person reads otherwise. */
export interface CommandResult {
  json: unknown;
  lines: string[];
}

/** Prints `result` as one JSON document when the global --json flag is set, else as human lines. */
export function printResult(io: CliIo, command: Command, result: CommandResult): void {
  const { json } = command.optsWithGlobals<{ json?: boolean }>();
  if (json) io.out(JSON.stringify(result.json, null, 2));
  else for (const line of result.lines) io.out(line);
}

/** Columns padded to their widest cell; one string per row, header first. */
export function formatTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const format = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [format(header), ...rows.map(format)];
}

/** Balances are BIGINT in the database; credits stay far below 2^53, so JSON gets a plain number. */
export function toNumber(value: bigint): number {
  return Number(value);
}

export function formatDate(value: Date | null): string {
  return value ? value.toISOString() : "-";
}
