import { Router } from "express";
import { loadOverview } from "../data/overview";
import type { DashboardDeps } from "../deps";
import { NotFoundError, sendPage, sessionOf } from "../http";
import { overviewPage } from "../views/overview.view";

export function overviewRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.get("/", async (_req, res) => {
    const session = sessionOf(res);
    const overview = await loadOverview(deps.db.pool, session.accountId);
    if (!overview) throw new NotFoundError();
    sendPage(res, 200, overviewPage(session, overview));
  });
  return router;
}
