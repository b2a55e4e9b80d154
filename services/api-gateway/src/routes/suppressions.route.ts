import type { RequestHandler, Router } from "express";
import type pg from "pg";
import { ApiError } from "@sms/errors";
import { normalizePhone } from "@sms/message-acceptance";
import { addSuppression, listSuppressions, removeSuppression, type Suppression } from "@sms/suppressions";
import { authOf, requirePermission } from "../http/auth";
import { parseOrThrow } from "../http/validate";
import { strictRouter } from "../http/strict-router";
import {
  AddSuppressionRequest,
  ListSuppressionsQuery,
  SuppressionNumberParam,
} from "../schemas/suppressions";

export const toSuppressionView = (s: Suppression) => ({
  number: s.number,
  source: s.source,
  reply_number: s.replyNumber,
  created_at: s.createdAt.toISOString(),
});

/**
 * GET /v1/suppressions, POST /v1/suppressions, DELETE /v1/suppressions/{number}: the
 * account's opt-out list (docs/api.md#suppressions). Reading needs sms:read, changing it sms:send.
 */
export function suppressionRoutes(pool: pg.Pool, idempotent: RequestHandler): Router {
  const router = strictRouter();

  router.get("/v1/suppressions", requirePermission("sms:read"), async (req, res) => {
    const query = parseOrThrow(ListSuppressionsQuery, req.query);
    const page = await listSuppressions(pool, authOf(res).account.id, query);
    res.json({ data: page.data.map(toSuppressionView), next_cursor: page.nextCursor });
  });

  router.post("/v1/suppressions", requirePermission("sms:send"), idempotent, async (req, res) => {
    const body = parseOrThrow(AddSuppressionRequest, req.body);
    const number = normalizePhone(body.number, "number");
    const { added, suppression } = await addSuppression(pool, {
      accountId: authOf(res).account.id,
      number,
      source: "api",
    });
    res.status(added ? 201 : 200).json(toSuppressionView(suppression));
  });

  router.delete("/v1/suppressions/:number", requirePermission("sms:send"), async (req, res) => {
    const { number: raw } = parseOrThrow(SuppressionNumberParam, req.params);
    const number = normalizePhone(raw.startsWith("+") ? raw : `+${raw.trimStart()}`, "number");
    if (!(await removeSuppression(pool, authOf(res).account.id, number)))
      throw new ApiError("NOT_FOUND", "This number is not on this account's suppression list.", {
        field: "number",
      });
    res.status(204).end();
  });

  return router;
}
