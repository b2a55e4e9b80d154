import { olderThanCursor, type Prisma, type PrismaClient } from "@sms/db";
import { idBoundAt, idTime, isId } from "@sms/ids";
import { successOnDelivery } from "@sms/webhooks";
import { decodeCursor, toPage, type Page } from "../pagination";
import type { MessageFilters } from "./message-filters";

const listed = {
  id: true,
  to: true,
  senderId: true,
  status: true,
  source: true,
  segmentCount: true,
  batchId: true,
  errorCode: true,
  createdAt: true,
} as const;
export type MessageRow = Prisma.MessageGetPayload<{ select: typeof listed }>;

/** One account's messages, newest first, filtered, one keyset page. */
export async function searchMessages(
  prisma: PrismaClient,
  accountId: string,
  filters: MessageFilters,
  page: { cursor: unknown; size: number },
): Promise<Page<MessageRow>> {
  const where: Prisma.MessageWhereInput = { accountId };
  if (filters.to) where.to = filters.to;
  if (filters.status) where.status = filters.status;
  if (filters.batchId) where.batchId = filters.batchId;
  if (filters.from || filters.until)
    where.createdAt = {
      ...(filters.from && { gte: filters.from }),
      ...(filters.until && { lt: filters.until }),
    };
  // A message's id time (when it is due) is never before its creation: the bound lets the list
  // leave out the weeks before `from` (docs/decisions.md#partitions).
  if (filters.from) where.id = { gte: idBoundAt("msg", filters.from.getTime()) };
  const cursor = decodeCursor(page.cursor, (id) => isId("msg", id));
  if (cursor) Object.assign(where, olderThanCursor("createdAt", "id", cursor));
  const rows = await prisma.message.findMany({
    where,
    select: listed,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.size + 1,
  });
  return toPage(rows, page.size, (row) => ({ at: row.createdAt, id: row.id }));
}

/** Webhook attempts shown per delivery on a message's page; the webhook page has the rest. */
const ATTEMPTS_PER_DELIVERY = 10;

/**
 * A message of the account with its segments, status history and webhook deliveries (with
 * their latest attempts), or null for an unknown id or another account's (the same answer).
 */
export async function findMessage(prisma: PrismaClient, accountId: string, messageId: string) {
  if (!isId("msg", messageId)) return null;
  const message = await prisma.message.findFirst({
    where: { id: messageId, accountId },
    include: {
      segments: { orderBy: { seq: "asc" } },
      events: { orderBy: { sequence: "asc" } },
      otp: { select: { id: true, status: true, expiresAt: true } },
    },
  });
  if (!message) return null;
  // A delivery's id is its event's id. A status event is its history row's event id (read above);
  // one written before that (docs/decisions.md#status-events) is an outbox_events row, indexed by
  // message, from when the message was due (its id's time) on: the days before are left out (an
  // hour before, for hosts whose clocks disagree).
  const written = await prisma.outboxEvent.findMany({
    where: { messageId, accountId, id: { gte: idBoundAt("evt", idTime(messageId) - 3_600_000) } },
    select: { id: true },
    orderBy: { sequence: "asc" },
    take: 50,
  });
  const eventIds = [
    ...message.events.flatMap((event) => (event.eventId ? [event.eventId] : [])),
    ...written.map((event) => event.id),
  ];
  const deliveries = await prisma.webhookDelivery.findMany({
    where: { eventId: { in: eventIds }, accountId },
    orderBy: { createdAt: "asc" },
  });
  // A success is on its delivery (already read here), a failure in webhook_attempts.
  const attempts = await prisma.webhookAttempt.findMany({
    where: { eventId: { in: deliveries.map((d) => d.eventId) }, accountId },
    orderBy: [{ eventId: "asc" }, { attempt: "desc" }],
  });
  return {
    message,
    deliveries: deliveries.map((delivery) => {
      const success = successOnDelivery(delivery);
      const failures = attempts.filter((a) => a.eventId === delivery.eventId);
      return {
        delivery,
        attempts: [...(success ? [success] : []), ...failures].slice(0, ATTEMPTS_PER_DELIVERY),
      };
    }),
  };
}
export type MessageDetail = NonNullable<Awaited<ReturnType<typeof findMessage>>>;
