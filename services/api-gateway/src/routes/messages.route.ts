import type { RequestHandler, Router } from "express";
import type pg from "pg";
import { olderThanCursor, type Prisma, type PrismaClient } from "@sms/db";
import { ApiError } from "@sms/errors";
import { idBoundAt, isId } from "@sms/ids";
import { normalizePhone } from "@sms/message-acceptance";
import { authOf, requirePermission } from "../http/auth";
import { parseOrThrow } from "../http/validate";
import { MessageIdParam } from "../schemas/common";
import { ListMessagesQuery } from "../schemas/sms";
import { cancelScheduledMessage } from "./cancel";
import { decodeCursor, encodeCursor } from "./cursor";
import { toMessageView, toStatusChange } from "./views";
import { strictRouter } from "../http/strict-router";

const otpSummary = { id: true, status: true, expiresAt: true } as const;

const notFound = () => new ApiError("NOT_FOUND", "No message with this id exists for this account.");

/** GET /v1/sms, GET /v1/sms/{id}, POST /v1/sms/{id}/cancel. Every query is scoped to the caller's account. */
export function messageRoutes(prisma: PrismaClient, pool: pg.Pool, idempotent: RequestHandler): Router {
  const router = strictRouter();

  router.get("/v1/sms", requirePermission("sms:read"), async (req, res) => {
    const query = parseOrThrow(ListMessagesQuery, req.query);
    const where: Prisma.MessageWhereInput = { accountId: authOf(res).account.id };
    if (query.status) where.status = query.status;
    if (query.to) where.to = normalizePhone(query.to, "to");
    if (query.batch_id) where.batchId = query.batch_id;
    if (query.client_ref) where.clientRef = query.client_ref;
    if (query.from || query.until)
      where.createdAt = {
        ...(query.from && { gte: new Date(query.from) }),
        ...(query.until && { lt: new Date(query.until) }),
      };
    // A message's id time (when it is due) is never before its creation: the bound lets the list
    // leave out the weeks before `from` (docs/decisions.md#partitions).
    if (query.from) where.id = { gte: idBoundAt("msg", new Date(query.from).getTime()) };
    if (query.cursor) {
      const cursor = decodeCursor(query.cursor);
      Object.assign(where, olderThanCursor("createdAt", "id", { at: cursor.createdAt, id: cursor.id }));
    }
    const rows = await prisma.message.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: query.limit + 1,
      include: { otp: { select: otpSummary } },
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    res.json({
      data: page.map(toMessageView),
      next_cursor: rows.length > query.limit && last ? encodeCursor(last) : null,
    });
  });

  router.get("/v1/sms/:message_id", requirePermission("sms:read"), async (req, res) => {
    const { message_id } = parseOrThrow(MessageIdParam, req.params);
    if (!isId("msg", message_id)) throw notFound();
    const accountId = authOf(res).account.id;
    const include = { events: { orderBy: { sequence: "asc" } }, otp: { select: otpSummary } } as const;
    let message = await prisma.message.findFirst({ where: { id: message_id, accountId }, include });
    // The id of one part of a concatenated SMPP submit answers the message its parts made.
    const part = message
      ? null
      : await prisma.smppSubmit.findFirst({
          where: { id: message_id, accountId, messageId: { not: null } },
          select: { messageId: true, partSeq: true, partTotal: true },
        });
    if (part?.messageId)
      message = await prisma.message.findFirst({ where: { id: part.messageId, accountId }, include });
    if (!message) throw notFound();
    res.json({
      ...toMessageView(message),
      history: message.events.map(toStatusChange),
      ...(part && { smpp_part: { id: message_id, index: part.partSeq ?? 1, total: part.partTotal ?? 1 } }),
    });
  });

  router.post("/v1/sms/:message_id/cancel", requirePermission("sms:send"), idempotent, async (req, res) => {
    const { message_id } = parseOrThrow(MessageIdParam, req.params);
    if (!isId("msg", message_id)) throw notFound();
    const message = await cancelScheduledMessage(prisma, pool, authOf(res).account.id, message_id);
    res.json(toMessageView(message));
  });

  return router;
}
