import type { Router } from "express";
import type pg from "pg";
import { ApiError } from "@sms/errors";
import { exportFileName, exportRangeProblem, writeMessageExport } from "@sms/message-state";
import { authOf, requirePermission } from "../http/auth";
import { parseOrThrow } from "../http/validate";
import { strictRouter } from "../http/strict-router";
import { ExportMessagesQuery } from "../schemas/sms";

/**
 * GET /v1/sms/export: the caller's messages created in [since, until) as CSV, streamed
 * (docs/api.md#export-messages). Registered before GET /v1/sms/{message_id}, which would
 * take "export" for an id. On top of the account's requests per second, each gateway process
 * runs at most `perAccount` exports of one account at a time: one export reads up to a month.
 */
export function exportRoutes(pool: pg.Pool, options: { perAccount: number }): Router {
  const router = strictRouter();
  const running = new Map<string, number>();

  router.get("/v1/sms/export", requirePermission("sms:read"), async (req, res) => {
    const query = parseOrThrow(ExportMessagesQuery, req.query);
    const range = { since: new Date(query.since), until: new Date(query.until) };
    const problem = exportRangeProblem(range);
    if (problem) throw new ApiError("VALIDATION_ERROR", problem, { field: "until" });
    const accountId = authOf(res).account.id;
    const now = running.get(accountId) ?? 0;
    if (now >= options.perAccount)
      throw new ApiError(
        "RATE_LIMITED",
        `At most ${options.perAccount} exports of an account run at a time; retry when one has finished.`,
        { retryAfterSeconds: 5 },
      );
    running.set(accountId, now + 1);
    try {
      res.status(200);
      res.setHeader("content-type", "text/csv; charset=utf-8");
      res.setHeader("content-disposition", `attachment; filename="${exportFileName(range)}"`);
      res.setHeader("cache-control", "no-store");
      await writeMessageExport(pool, accountId, range, res);
      res.end();
    } catch (error) {
      // Once the header row is out the status is sent: a failure can only cut the response
      // short (no final chunk), which clients report as an incomplete download.
      if (!res.headersSent) throw error;
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    } finally {
      const left = (running.get(accountId) ?? 1) - 1;
      if (left > 0) running.set(accountId, left);
      else running.delete(accountId);
    }
  });

  return router;
}
