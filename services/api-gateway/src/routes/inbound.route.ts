import type { Router } from "express";
import type { InboundMessage, Prisma, PrismaClient } from "@sms/db";
import { ApiError } from "@sms/errors";
import { isId } from "@sms/ids";
import { authOf, requirePermission } from "../http/auth";
import { parseOrThrow } from "../http/validate";
import { InboundIdParam, ListInboundQuery } from "../schemas/inbound";
import { strictRouter } from "../http/strict-router";

const notFound = () => new ApiError("NOT_FOUND", "No inbound message with this id exists for this account.");

/** GET /v1/inbound and GET /v1/inbound/{id}: the account's inbound messages only (docs/api.md#inbound-messages). */
export function inboundRoutes(prisma: PrismaClient): Router {
  const router = strictRouter();

  router.get("/v1/inbound", requirePermission("sms:read"), async (req, res) => {
    const query = parseOrThrow(ListInboundQuery, req.query);
    const where: Prisma.InboundMessageWhereInput = { accountId: authOf(res).account.id };
    if (query.from) where.from = asAddress(query.from);
    if (query.to) where.to = asAddress(query.to);
    if (query.since || query.until)
      where.receivedAt = {
        ...(query.since && { gte: new Date(query.since) }),
        ...(query.until && { lt: new Date(query.until) }),
      };
    // ids are ULIDs given at storage: newest first by id is newest first by arrival.
    if (query.cursor) where.id = { lt: decodeInboundCursor(query.cursor) };
    const rows = await prisma.inboundMessage.findMany({
      where,
      orderBy: { id: "desc" },
      take: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    res.json({
      data: page.map(toInboundView),
      next_cursor: rows.length > query.limit && last ? Buffer.from(last.id).toString("base64url") : null,
    });
  });

  router.get("/v1/inbound/:inbound_id", requirePermission("sms:read"), async (req, res) => {
    const { inbound_id } = parseOrThrow(InboundIdParam, req.params);
    if (!isId("in", inbound_id)) throw notFound();
    const message = await prisma.inboundMessage.findFirst({
      where: { id: inbound_id, accountId: authOf(res).account.id },
    });
    if (!message) throw notFound();
    res.json(toInboundView(message));
  });

  return router;
}

function toInboundView(message: InboundMessage) {
  return {
    id: message.id,
    from: message.from,
    to: message.to,
    text: message.text,
    encoding: message.encoding,
    segments: message.segments,
    flags: message.flags,
    received_at: message.receivedAt.toISOString(),
  };
}

/** A "+" left unescaped in a query string arrives as a space: "+14155550123" is what was meant. */
function asAddress(value: string): string {
  return /^ [0-9]+$/.test(value) ? `+${value.slice(1)}` : value;
}

function decodeInboundCursor(cursor: string): string {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!isId("in", id))
    throw new ApiError("VALIDATION_ERROR", "cursor is not a next_cursor value returned by this endpoint.", {
      field: "cursor",
    });
  return id;
}
