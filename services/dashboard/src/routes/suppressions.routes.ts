import { Router } from "express";
import { ApiError } from "@sms/errors";
import { normalizePhone } from "@sms/message-acceptance";
import { addSuppression, listSuppressions, removeSuppression } from "@sms/suppressions";
import type { DashboardDeps } from "../deps";
import { formOf, NotFoundError, sendPage, sessionOf, textOf } from "../http";
import { pageSize } from "../pagination";
import { suppressionsPage } from "../views/suppressions.view";

/** The account's opt-out list: list, add, remove (docs/api.md#suppressions). */
export function suppressionRoutes(deps: DashboardDeps): Router {
  const { pool } = deps.db;
  const router = Router();
  const pageOf = async (accountId: string, cursor: unknown, limit: unknown) => {
    const size = pageSize(limit);
    try {
      const page = await listSuppressions(pool, accountId, {
        limit: size,
        cursor: typeof cursor === "string" && cursor ? cursor : undefined,
      });
      return { rows: page.data, next: page.nextCursor, isFirstPage: !cursor };
    } catch (error) {
      // A stale or hand-edited cursor shows page one, as on every list.
      if (!(error instanceof ApiError)) throw error;
      const page = await listSuppressions(pool, accountId, { limit: size });
      return { rows: page.data, next: page.nextCursor, isFirstPage: true };
    }
  };

  router.get("/settings/suppressions", async (req, res) => {
    const session = sessionOf(res);
    const { isFirstPage, ...page } = await pageOf(session.accountId, req.query.cursor, req.query.limit);
    const number = textOf(req.query, "number", 40);
    const done = textOf(req.query, "done", 10);
    const changed =
      number && (done === "added" || done === "removed") ? { number, added: done === "added" } : undefined;
    sendPage(res, 200, suppressionsPage({ session, page, isFirstPage, changed }));
  });

  router.post("/settings/suppressions", async (req, res) => {
    const session = sessionOf(res);
    const typed = textOf(formOf(req), "number", 40);
    let number: string;
    try {
      number = normalizePhone(typed, "Number");
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const { isFirstPage, ...page } = await pageOf(session.accountId, undefined, undefined);
      return sendPage(
        res,
        400,
        suppressionsPage({ session, page, isFirstPage, form: { number: typed }, error: error.message }),
      );
    }
    await addSuppression(pool, { accountId: session.accountId, number, source: "api" });
    deps.logger.info("suppression added in the dashboard", {
      account_id: session.accountId,
      user_id: session.userId,
    });
    res.redirect(303, `/settings/suppressions?done=added&number=${encodeURIComponent(number)}`);
  });

  router.post("/settings/suppressions/:number/remove", async (req, res) => {
    const session = sessionOf(res);
    const number = req.params.number;
    if (!(await removeSuppression(pool, session.accountId, number))) throw new NotFoundError();
    deps.logger.info("suppression removed in the dashboard", {
      account_id: session.accountId,
      user_id: session.userId,
    });
    res.redirect(303, `/settings/suppressions?done=removed&number=${encodeURIComponent(number)}`);
  });

  return router;
}
