import { Router, type Response } from "express";
import { countOpenBinds, loadSmppSettings, resetAccountSmppPassword } from "../data/smpp";
import type { DashboardDeps } from "../deps";
import { NotFoundError, sendPage, sessionOf, textOf } from "../http";
import { DEFAULT_PAGE_SIZE } from "../pagination";
import { smppPage } from "../views/smpp.view";

export function smppRoutes(deps: DashboardDeps): Router {
  const router = Router();

  async function render(res: Response, status: number, newPassword?: string, after = "") {
    const session = sessionOf(res);
    const [{ credential, senders, nextSendersAfter, allowedCountries }, openBinds] = await Promise.all([
      loadSmppSettings(deps.db.prisma, session.accountId, { after, size: DEFAULT_PAGE_SIZE }),
      // The page still works while Redis is away; it says the count is unknown.
      countOpenBinds(deps.redis, deps.config.REDIS_PREFIX, session.accountId).catch(() => null),
    ]);
    sendPage(
      res,
      status,
      smppPage({
        session,
        credential,
        openBinds,
        senders,
        nextSendersAfter,
        isFirstSendersPage: !after,
        allowedCountries,
        newPassword,
      }),
    );
  }

  router.get("/settings/smpp", (req, res) => render(res, 200, undefined, textOf(req.query, "after", 20)));

  router.post("/settings/smpp/reset-password", async (_req, res) => {
    const session = sessionOf(res);
    const reset = await resetAccountSmppPassword(deps.db.prisma, session.accountId);
    if (!reset) throw new NotFoundError();
    deps.logger.info("smpp password reset in the dashboard", {
      account_id: session.accountId,
      user_id: session.userId,
    });
    await render(res, 200, reset.password);
  });

  return router;
}
