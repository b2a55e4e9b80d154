import type { Router } from "express";
import type pg from "pg";
import { ApiError } from "@sms/errors";
import {
  createMessageExports,
  EXPORT_RETRY_AFTER_SECONDS,
  exportRangeProblem,
  type MessageExportOptions,
} from "@sms/message-state";
import { authOf, requirePermission } from "../http/auth";
import { parseOrThrow } from "../http/validate";
import { strictRouter } from "../http/strict-router";
import { ExportMessagesQuery } from "../schemas/sms";

/**
 * GET /v1/sms/export: the caller's messages created in [since, until) as CSV, streamed
 * (docs/api.md#export-messages). Registered before GET /v1/sms/{message_id}, which would
 * take "export" for an id. On top of the account's requests per second, each gateway process
 * runs at most `perAccount` exports of one account at a time.
 */
export function exportRoutes(pool: pg.Pool, options: MessageExportOptions): Router {
  const router = strictRouter();
  const messageExports = createMessageExports(pool, options);

  router.get("/v1/sms/export", requirePermission("sms:read"), async (req, res) => {
    const query = parseOrThrow(ExportMessagesQuery, req.query);
    const range = { since: new Date(query.since), until: new Date(query.until) };
    const problem = exportRangeProblem(range);
    if (problem) throw new ApiError("VALIDATION_ERROR", problem, { field: "until" });
    if (!(await messageExports.send(authOf(res).account.id, range, res)))
      throw new ApiError(
        "RATE_LIMITED",
        `At most ${options.perAccount} exports of an account run at a time; retry when one has finished.`,
        { retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS },
      );
  });

  return router;
}
