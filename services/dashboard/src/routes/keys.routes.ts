import { Router } from "express";
import { isId } from "@sms/ids";
import { createApiKey, listApiKeys, parseNewKeyForm, revokeAccountKey } from "../data/api-keys";
import type { DashboardDeps } from "../deps";
import { formOf, NotFoundError, sendPage, sessionOf, textOf } from "../http";
import { pageSize } from "../pagination";
import { keysPage } from "../views/keys.view";

export function keyRoutes(deps: DashboardDeps): Router {
  const { prisma } = deps.db;
  const router = Router();
  const firstPage = (accountId: string) =>
    listApiKeys(prisma, accountId, { cursor: undefined, size: pageSize(undefined) });

  router.get("/settings/api-keys", async (req, res) => {
    const session = sessionOf(res);
    const page = await listApiKeys(prisma, session.accountId, {
      cursor: req.query.cursor,
      size: pageSize(req.query.limit),
    });
    const revoked = textOf(req.query, "revoked", 40);
    sendPage(
      res,
      200,
      keysPage({
        session,
        page,
        isFirstPage: !req.query.cursor,
        revoked: isId("key", revoked) ? revoked : undefined,
      }),
    );
  });

  router.post("/settings/api-keys", async (req, res) => {
    const session = sessionOf(res);
    const parsed = parseNewKeyForm(formOf(req));
    if (!parsed.value) {
      const page = await firstPage(session.accountId);
      return sendPage(
        res,
        400,
        keysPage({ session, page, isFirstPage: true, form: parsed.form, errors: parsed.errors }),
      );
    }
    const issued = await createApiKey(prisma, session.accountId, parsed.value);
    deps.logger.info("api key created in the dashboard", {
      account_id: session.accountId,
      key_id: issued.id,
      user_id: session.userId,
    });
    // Shown on this response only (no redirect: the key must not travel in a URL).
    sendPage(
      res,
      201,
      keysPage({ session, page: await firstPage(session.accountId), isFirstPage: true, issued }),
    );
  });

  router.post("/settings/api-keys/:id/revoke", async (req, res) => {
    const session = sessionOf(res);
    const revoked = await revokeAccountKey(prisma, session.accountId, req.params.id);
    if (!revoked) throw new NotFoundError();
    deps.logger.info("api key revoked in the dashboard", {
      account_id: session.accountId,
      key_id: req.params.id,
      user_id: session.userId,
    });
    res.redirect(303, `/settings/api-keys?revoked=${encodeURIComponent(req.params.id)}`);
  });

  return router;
}
