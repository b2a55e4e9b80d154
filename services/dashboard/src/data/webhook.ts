import type pg from "pg";
import type { PrismaClient } from "@sms/db";
import type { WebhookDeliverProducer } from "@sms/queues";
import { replayFailedDeliveries, type ReplayResult, type WebhookEndpoints } from "@sms/webhook-endpoints";
import { buildTestDelivery } from "@sms/webhook-events";
import type { AttemptResult, WebhookSender } from "@sms/webhook-sender";
import { decodeCursor, toPage, type Page } from "../pagination";

/** Sends a signed webhook.test to the account's endpoint: the request the CLI's `webhook test` sends. */
export async function sendTestEvent(
  endpoints: WebhookEndpoints,
  sender: WebhookSender,
  accountId: string,
): Promise<AttemptResult | null> {
  const target = await endpoints.loadTarget(accountId);
  if (!target) return null;
  return sender.send(buildTestDelivery(target));
}

export interface AttemptRow {
  id: bigint;
  eventId: string;
  attempt: number;
  url: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  startedAt: Date;
  deliveryStatus: string | null;
  messageId: string | null;
}

/** The account's webhook attempts, newest first, with the state of their delivery. */
export async function listAttempts(
  prisma: PrismaClient,
  accountId: string,
  page: { cursor: unknown; size: number },
): Promise<Page<AttemptRow>> {
  const cursor = decodeCursor(page.cursor, (id) => /^\d{1,19}$/.test(id));
  const rows = await prisma.webhookAttempt.findMany({
    where: {
      accountId,
      ...(cursor && {
        OR: [{ startedAt: { lt: cursor.at } }, { startedAt: cursor.at, id: { lt: BigInt(cursor.id) } }],
      }),
    },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: page.size + 1,
  });
  const deliveries = await prisma.webhookDelivery.findMany({
    where: { accountId, eventId: { in: [...new Set(rows.map((r) => r.eventId))] } },
    select: { eventId: true, status: true, messageId: true },
  });
  const byEvent = new Map(deliveries.map((d) => [d.eventId, d]));
  const withDelivery = rows.map((r) => ({
    id: r.id,
    eventId: r.eventId,
    attempt: r.attempt,
    url: r.url,
    statusCode: r.statusCode,
    latencyMs: r.latencyMs,
    error: r.error,
    startedAt: r.startedAt,
    deliveryStatus: byEvent.get(r.eventId)?.status ?? null,
    messageId: byEvent.get(r.eventId)?.messageId ?? null,
  }));
  return toPage(withDelivery, page.size, (row) => ({ at: row.startedAt, id: String(row.id) }));
}

/** How many of the account's deliveries are failed (what "replay failed" would send again). */
export function countFailedDeliveries(prisma: PrismaClient, accountId: string): Promise<number> {
  return prisma.webhookDelivery.count({ where: { accountId, status: "failed" } });
}

/**
 * Replays the account's failed deliveries: one event, or all created in the last `days`.
 * The same statement as the CLI's `webhook replay`, scoped to the account. No upper bound:
 * created_at is the database's clock, and this process's `now` as a bound would leave out
 * a delivery that failed in the same millisecond, or any while our clock runs behind.
 * At most `maxPerRequest` per call (WEBHOOK_REPLAY_MAX_PER_REQUEST), the oldest first.
 */
export function replayFailed(
  pool: pg.Pool,
  producer: WebhookDeliverProducer,
  accountId: string,
  what: { eventId: string } | { days: number },
  maxPerRequest: number,
  now = new Date(),
): Promise<ReplayResult> {
  return replayFailedDeliveries(
    pool,
    producer,
    "eventId" in what
      ? { eventIds: [what.eventId], accountId }
      : { accountId, from: new Date(now.getTime() - what.days * 24 * 3600_000) },
    maxPerRequest,
  );
}
