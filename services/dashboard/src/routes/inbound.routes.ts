import { Router } from "express";
import { listInbound } from "../data/inbound";
import type { DashboardDeps } from "../deps";
import { sendPage, sessionOf } from "../http";
import { pageSize } from "../pagination";
import { inboundPage } from "../views/inbound.view";

export function inboundRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.get("/inbound", async (req, res) => {
    const session = sessionOf(res);
    const { numbers, page } = await listInbound(deps.db.prisma, session.accountId, {
      cursor: req.query.cursor,
      size: pageSize(req.query.limit),
    });
    sendPage(res, 200, inboundPage(session, numbers, page, !req.query.cursor));
  });
  return router;
}
