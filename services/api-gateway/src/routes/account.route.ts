import { Router } from "express";
import type { PrismaClient } from "@sms/db";
import { ApiError } from "@sms/errors";
import { isId } from "@sms/ids";
import { authOf, requirePermission } from "../http/auth";
import { parseOrThrow } from "../http/validate";
import { z } from "zod";

const BatchIdParam = z.object({ batch_id: z.string().max(40) });

/** GET /v1/sms/bulk/{batch_id} and GET /v1/account. */
export function accountRoutes(prisma: PrismaClient, limits: { maxSegments: number }): Router {
  const router = Router();

  router.get("/v1/sms/bulk/:batch_id", requirePermission("sms:read"), async (req, res) => {
    const { batch_id } = parseOrThrow(BatchIdParam, req.params);
    const accountId = authOf(res).account.id;
    if (!isId("bat", batch_id))
      throw new ApiError("NOT_FOUND", "No batch with this id exists for this account.");
    const batch = await prisma.batch.findFirst({ where: { id: batch_id, accountId } });
    if (!batch) throw new ApiError("NOT_FOUND", "No batch with this id exists for this account.");
    const groups = await prisma.message.groupBy({
      by: ["status"],
      where: { batchId: batch.id, accountId },
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
  });

  router.get("/v1/account", requirePermission("account:read"), async (_req, res) => {
    const account = await prisma.account.findUniqueOrThrow({
      where: { id: authOf(res).account.id },
      include: { senderIds: { select: { value: true }, orderBy: { value: "asc" } } },
    });
    res.json({
      account_id: account.id,
      name: account.name,
      status: account.status,
      balance: Number(account.balance),
      limits: {
        requests_per_second: account.requestsPerSecond,
        messages_per_second: account.messagesPerSecond,
        daily_quota: account.dailyQuota,
        max_batch_size: account.maxBatchSize,
        max_segments: limits.maxSegments,
      },
      sender_ids: account.senderIds.map((s) => s.value),
    });
  });

  return router;
}
