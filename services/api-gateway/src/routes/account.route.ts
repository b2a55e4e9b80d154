import type { RequestHandler, Router } from "express";
import type { PrismaClient } from "@sms/db";
import { ApiError } from "@sms/errors";
import { idBoundAt, isId } from "@sms/ids";
import { dailyQuotaUsed } from "@sms/message-acceptance";
import { resolveEventTypes } from "@sms/webhooks";
import { authOf, requirePermission } from "../http/auth";
import { parseOrThrow } from "../http/validate";
import { BatchIdParam } from "../schemas/sms";
import { strictRouter } from "../http/strict-router";

/** GET /v1/batches/{batch_id} (and its first address, /v1/sms/bulk/{batch_id}) and GET /v1/account. */
export function accountRoutes(prisma: PrismaClient, limits: { maxSegments: number }): Router {
  const router = strictRouter();

  // /v1/sms/bulk/{batch_id} was the first address: still served, no longer documented (ambiguous beside /v1/sms/{id}/cancel).
  const getBatch: RequestHandler = async (req, res) => {
    const { batch_id } = parseOrThrow(BatchIdParam, req.params);
    const accountId = authOf(res).account.id;
    if (!isId("bat", batch_id))
      throw new ApiError("NOT_FOUND", "No batch with this id exists for this account.");
    const batch = await prisma.batch.findFirst({ where: { id: batch_id, accountId } });
    if (!batch) throw new ApiError("NOT_FOUND", "No batch with this id exists for this account.");
    const groups = await prisma.message.groupBy({
      by: ["status"],
      // Its messages are due from the batch's creation on (their ids' time): the weeks before are left out.
      where: { batchId: batch.id, accountId, id: { gte: idBoundAt("msg", batch.createdAt.getTime()) } },
      _count: { _all: true },
    });
    const counts = { scheduled: 0, queued: 0, sent: 0, delivered: 0, failed: 0, canceled: 0 };
    for (const group of groups) counts[group.status] = group._count._all;
    res.json({
      batch_id: batch.id,
      sender_id: batch.senderId,
      total: batch.total,
      accepted: batch.accepted,
      rejected: batch.rejected,
      created_at: batch.createdAt.toISOString(),
      counts,
    });
  };
  router.get("/v1/batches/:batch_id", requirePermission("sms:read"), getBatch);
  router.get("/v1/sms/bulk/:batch_id", requirePermission("sms:read"), getBatch);

  router.get("/v1/account", requirePermission("account:read"), async (_req, res) => {
    const account = await prisma.account.findUniqueOrThrow({
      where: { id: authOf(res).account.id },
      include: {
        senderIds: { select: { value: true }, orderBy: { value: "asc" } },
        inboundNumbers: { select: { number: true }, orderBy: { number: "asc" } },
        webhook: { select: { url: true, enabled: true, eventTypes: true } },
      },
    });
    // NULL is every event (docs/decisions.md#webhook-event-types); Prisma types the list as never null.
    const eventTypes = account.webhook && (account.webhook.eventTypes as string[] | null);
    const allEvents = !eventTypes || eventTypes.length === 0;
    res.json({
      account_id: account.id,
      name: account.name,
      status: account.status,
      balance: Number(account.balance),
      limits: {
        requests_per_second: account.requestsPerSecond,
        messages_per_second: account.messagesPerSecond,
        daily_quota: account.dailyQuota,
        daily_quota_used: dailyQuotaUsed(account),
        max_batch_size: account.maxBatchSize,
        max_segments: limits.maxSegments,
      },
      sender_ids: account.senderIds.map((s) => s.value),
      inbound_numbers: account.inboundNumbers.map((n) => n.number),
      // null: every country (docs/decisions.md#geo-permissions).
      allowed_countries: account.allowedCountries.length > 0 ? account.allowedCountries : null,
      webhook: account.webhook && {
        url: account.webhook.url,
        enabled: account.webhook.enabled,
        event_types: resolveEventTypes(allEvents ? null : eventTypes),
        all_events: allEvents,
      },
      auto_replies: {
        stop: account.autoReplyStop,
        start: account.autoReplyStart,
        help: account.autoReplyHelp,
      },
    });
  });

  return router;
}
