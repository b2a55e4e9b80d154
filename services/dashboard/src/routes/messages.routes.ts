import { Router } from "express";
import { createMessageExports, EXPORT_RETRY_AFTER_SECONDS } from "@sms/message-state";
import { parseExportForm, type ParsedExportForm } from "../data/message-export-form";
import { parseMessageFilters } from "../data/message-filters";
import { findMessage, searchMessages } from "../data/messages";
import { listOtps } from "../data/otps";
import type { DashboardDeps } from "../deps";
import { NotFoundError, sendPage, sessionOf } from "../http";
import { pageSize } from "../pagination";
import { messagePage, messagesPage, otpsPage } from "../views/messages.view";

export function messageRoutes(deps: DashboardDeps): Router {
  const { prisma } = deps.db;
  const router = Router();
  const messageExports = createMessageExports(deps.db.pool, {
    perAccount: deps.config.EXPORTS_PER_ACCOUNT,
    logger: deps.logger,
  });

  router.get("/messages", async (req, res) => {
    const session = sessionOf(res);
    const parsed = parseMessageFilters(req.query);
    const hasErrors = Object.keys(parsed.errors).length > 0;
    const page = hasErrors
      ? { rows: [], next: null }
      : await searchMessages(prisma, session.accountId, parsed.filters, {
          cursor: req.query.cursor,
          size: pageSize(req.query.limit),
        });
    sendPage(res, hasErrors ? 400 : 200, messagesPage(session, parsed, page, !req.query.cursor));
  });

  // Before /messages/:id, which would take "export" for an id.
  router.get("/messages/export", async (req, res) => {
    const session = sessionOf(res);
    const download = parseExportForm(req.query);
    const refuse = async (status: number, form: ParsedExportForm) => {
      const first = await searchMessages(
        prisma,
        session.accountId,
        {},
        { cursor: undefined, size: pageSize(undefined) },
      );
      sendPage(res, status, messagesPage(session, parseMessageFilters({}), first, true, form));
    };
    if (!download.range) return refuse(400, download);
    if (!(await messageExports.send(session.accountId, download.range, res))) {
      res.set("Retry-After", String(EXPORT_RETRY_AFTER_SECONDS));
      return refuse(429, {
        ...download,
        errors: { until: "A download of this account is still running: try again when it has finished." },
      });
    }
  });

  router.get("/messages/:id", async (req, res) => {
    const session = sessionOf(res);
    const detail = await findMessage(prisma, session.accountId, req.params.id);
    if (!detail) {
      // The id an SMPP customer was given for one part of a concatenated submit: its message.
      const part = await prisma.smppSubmit.findFirst({
        where: { id: req.params.id, accountId: session.accountId, messageId: { not: null } },
        select: { messageId: true },
      });
      if (part?.messageId) return res.redirect(303, `/messages/${encodeURIComponent(part.messageId)}`);
      throw new NotFoundError();
    }
    sendPage(res, 200, messagePage(session, detail));
  });

  router.get("/otps", async (req, res) => {
    const session = sessionOf(res);
    const page = await listOtps(prisma, session.accountId, {
      cursor: req.query.cursor,
      size: pageSize(req.query.limit),
    });
    sendPage(res, 200, otpsPage(session, page, !req.query.cursor));
  });

  return router;
}
