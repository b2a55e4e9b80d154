import { Router } from "express";
import { exportFileName, writeMessageExport } from "@sms/message-state";
import { parseExportForm, type ParsedExportForm } from "../data/message-export-form";
import { parseMessageFilters } from "../data/message-filters";
import { findMessage, searchMessages } from "../data/messages";
import { listOtps } from "../data/otps";
import type { DashboardDeps } from "../deps";
import { NotFoundError, sendPage, sessionOf } from "../http";
import { pageSize } from "../pagination";
import { messagePage, messagesPage, otpsPage } from "../views/messages.view";

/** CSV downloads one account may run at a time in this process: each reads up to a month of messages. */
const EXPORTS_PER_ACCOUNT = 2;

export function messageRoutes(deps: DashboardDeps): Router {
  const { prisma } = deps.db;
  const router = Router();
  const exportsRunning = new Map<string, number>();

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
    const running = exportsRunning.get(session.accountId) ?? 0;
    if (running >= EXPORTS_PER_ACCOUNT) {
      res.set("Retry-After", "5");
      return refuse(429, {
        ...download,
        errors: { until: "A download of this account is still running: try again when it has finished." },
      });
    }
    exportsRunning.set(session.accountId, running + 1);
    try {
      res.status(200).set({
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${exportFileName(download.range)}"`,
        "Cache-Control": "no-store",
      });
      await writeMessageExport(deps.db.pool, session.accountId, download.range, res);
      res.end();
    } catch (error) {
      // After the header row the status is sent: a failure can only cut the download short.
      if (!res.headersSent) throw error;
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    } finally {
      const left = (exportsRunning.get(session.accountId) ?? 1) - 1;
      if (left > 0) exportsRunning.set(session.accountId, left);
      else exportsRunning.delete(session.accountId);
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
