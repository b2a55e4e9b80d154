import { envInt } from "@sms/config";
import type { Queryable } from "@sms/db";
import { exportFileName, writeMessageExport, type ExportRange, type ExportSink } from "./export";

/**
 * The EXPORTS_PER_ACCOUNT setting of each service that serves the export (the gateway and
 * the dashboard), so both have the same default and bounds.
 * @defaultValue 2
 */
export const exportsPerAccountSetting = () => envInt(2, 1, 100);

/** Retry-After, in seconds, of an export refused because the account runs its limit of them. */
export const EXPORT_RETRY_AFTER_SECONDS = 5;

/** What an export needs of an HTTP response: Node's ServerResponse, and so Express's, is one. */
export interface ExportResponse extends ExportSink {
  statusCode: number;
  readonly headersSent: boolean;
  setHeader(name: string, value: string): unknown;
  end(): unknown;
  destroy(error?: Error): unknown;
}

/** One process's message exports: at most `perAccount` of one account at a time. */
export interface MessageExports {
  /**
   * Answers `response` with the account's messages of `range` as a CSV download and resolves
   * true once it has ended; resolves false at once, `response` untouched, when the account
   * already runs its limit of exports in this process.
   */
  send(accountId: string, range: ExportRange, response: ExportResponse): Promise<boolean>;
}

/** Options of createMessageExports. */
export interface MessageExportOptions {
  /** Exports of one account running at once in this process. */
  perAccount: number;
  /**
   * Where an export cut short after its first rows went out (a database error) is logged: the
   * client sees only an incomplete download, so this is where an operator learns of it.
   */
  logger?: { warn(message: string, meta: Record<string, unknown>): unknown };
}

/**
 * The export behind `GET /v1/sms/export` and the dashboard's download (docs/api.md#export-messages).
 * The limit is per process because one export reads up to a month of messages; a slot is
 * freed however the export ends: finished, the client gone, or a database error.
 */
export function createMessageExports(db: Queryable, options: MessageExportOptions): MessageExports {
  const running = new Map<string, number>();
  const release = (accountId: string) => {
    const left = (running.get(accountId) ?? 1) - 1;
    if (left > 0) running.set(accountId, left);
    else running.delete(accountId);
  };
  return {
    async send(accountId, range, response) {
      const now = running.get(accountId) ?? 0;
      if (now >= options.perAccount) return false;
      running.set(accountId, now + 1);
      try {
        await streamExport(db, accountId, range, response, options.logger);
      } finally {
        release(accountId);
      }
      return true;
    },
  };
}

async function streamExport(
  db: Queryable,
  accountId: string,
  range: ExportRange,
  response: ExportResponse,
  logger: MessageExportOptions["logger"],
): Promise<void> {
  response.statusCode = 200;
  response.setHeader("content-type", "text/csv; charset=utf-8");
  response.setHeader("content-disposition", `attachment; filename="${exportFileName(range)}"`);
  response.setHeader("cache-control", "no-store");
  try {
    await writeMessageExport(db, accountId, range, response);
    response.end();
  } catch (error) {
    // Once the header row is out the status is sent: a failure can only cut the response
    // short (no final chunk), which clients report as an incomplete download.
    if (!response.headersSent) throw error;
    const cause = error instanceof Error ? error : new Error(String(error));
    logger?.warn("message export cut short by an error after its first rows", {
      account_id: accountId,
      error: cause.message,
    });
    response.destroy(cause);
  }
}
