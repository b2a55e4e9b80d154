import type pg from "pg";
import { olderThanCursor, type PrismaClient } from "@sms/db";
import type { WebhookDeliverProducer } from "@sms/queues";
import { isId } from "@sms/ids";
import {
  replayFailedDeliveries,
  successOnDelivery,
  SUCCESS_COLUMNS,
  type ReplayResult,
  type WebhookEndpoints,
} from "@sms/webhooks";
import { buildTestDelivery } from "@sms/webhooks";
import type { AttemptResult, WebhookSender } from "@sms/webhooks";
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
  /** The attempt row's id, or the event id of a success kept on its delivery. */
  key: string;
  eventId: string;
  attempt: number;
  /** Null for a success kept on its delivery (its URL is not kept). */
  url: string | null;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  startedAt: Date;
  deliveryStatus: string | null;
  messageId: string | null;
}

const isAttemptKey = (key: string) => /^\d{1,19}$/.test(key);

/**
 * The account's webhook attempts, newest first, with the state of their delivery: the failures
 * (and successes recorded before successes moved) from webhook_attempts, merged with the
 * successes their deliveries hold. Order: start time; at the same start, successes first (by
 * event id, descending), then attempt rows (by id, descending), so a cursor names its place.
 */
export async function listAttempts(
  prisma: PrismaClient,
  accountId: string,
  page: { cursor: unknown; size: number },
): Promise<Page<AttemptRow>> {
  const cursor = decodeCursor(page.cursor, (key) => isAttemptKey(key) || isId("evt", key));
  const cursorIsSuccess = cursor !== undefined && !isAttemptKey(cursor.id);
  const [rows, successRows] = await Promise.all([
    prisma.webhookAttempt.findMany({
      where: {
        accountId,
        // After a success every attempt row of its start time is still to come (successes go first).
        ...(cursor &&
          (cursorIsSuccess
            ? { startedAt: { lte: cursor.at } }
            : olderThanCursor("startedAt", "id", { at: cursor.at, id: BigInt(cursor.id) }))),
      },
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      take: page.size + 1,
    }),
    prisma.webhookDelivery.findMany({
      where: {
        accountId,
        successOnRow: true,
        // After an attempt row no success of its start time is left.
        ...(cursor &&
          (cursorIsSuccess
            ? olderThanCursor("lastAttemptAt", "eventId", cursor)
            : { lastAttemptAt: { lt: cursor.at } })),
      },
      select: { ...SUCCESS_COLUMNS, status: true, messageId: true },
      orderBy: [{ lastAttemptAt: "desc" }, { eventId: "desc" }],
      take: page.size + 1,
    }),
  ]);
  const successes: AttemptRow[] = successRows.flatMap((d) => {
    const success = successOnDelivery(d);
    return success ? [{ ...success, key: d.eventId, deliveryStatus: d.status, messageId: d.messageId }] : [];
  });
  const deliveries = await prisma.webhookDelivery.findMany({
    where: { accountId, eventId: { in: [...new Set(rows.map((r) => r.eventId))] } },
    select: { eventId: true, status: true, messageId: true },
  });
  const byEvent = new Map(deliveries.map((d) => [d.eventId, d]));
  const failures: AttemptRow[] = rows.map((r) => ({
    key: String(r.id),
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
  const merged = mergeNewestFirst(successes, failures).slice(0, page.size + 1);
  return toPage(merged, page.size, (row) => ({ at: row.startedAt, id: row.key }));
}

/** Two lists each newest first into one; at the same time the first list's rows come first. */
function mergeNewestFirst(first: AttemptRow[], second: AttemptRow[]): AttemptRow[] {
  const merged: AttemptRow[] = [];
  let i = 0;
  let j = 0;
  while (i < first.length || j < second.length) {
    const a = first[i];
    const b = second[j];
    if (a && (!b || a.startedAt.getTime() >= b.startedAt.getTime())) {
      merged.push(a);
      i += 1;
    } else if (b) {
      merged.push(b);
      j += 1;
    }
  }
  return merged;
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
