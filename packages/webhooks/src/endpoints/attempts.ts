import type { PrismaClient, WebhookAttempt, WebhookDelivery } from "@sms/db";

/**
 * One HTTP attempt of a delivery as the readers show it. A failed attempt is a webhook_attempts
 * row; a success is kept on its delivery row, without the URL and the answer's body (no reader
 * shows the URL; a success's body says nothing support needs), unless it was recorded before
 * that change, when it is a webhook_attempts row as well.
 */
export interface RecordedAttempt {
  eventId: string;
  attempt: number;
  /** Null for a success kept on its delivery. */
  url: string | null;
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
  startedAt: Date;
}

type DeliveryColumns = Pick<
  WebhookDelivery,
  "eventId" | "attempts" | "successOnRow" | "lastStatusCode" | "lastAttemptAt" | "succeededAt"
>;

/** The successful attempt a delivery row holds, or null (not succeeded, or its success is an attempt row). */
export function successOnDelivery(delivery: DeliveryColumns): RecordedAttempt | null {
  const { successOnRow, lastAttemptAt, succeededAt } = delivery;
  if (successOnRow !== true || lastAttemptAt === null || succeededAt === null) return null;
  return {
    eventId: delivery.eventId,
    attempt: delivery.attempts,
    url: null,
    statusCode: delivery.lastStatusCode,
    latencyMs: succeededAt.getTime() - lastAttemptAt.getTime(),
    responseBody: null,
    error: null,
    startedAt: lastAttemptAt,
  };
}

export const SUCCESS_COLUMNS = {
  eventId: true,
  attempts: true,
  successOnRow: true,
  lastStatusCode: true,
  lastAttemptAt: true,
  succeededAt: true,
} as const;

const fromRow = (row: WebhookAttempt): RecordedAttempt => ({
  eventId: row.eventId,
  attempt: row.attempt,
  url: row.url,
  statusCode: row.statusCode,
  latencyMs: row.latencyMs,
  responseBody: row.responseBody,
  error: row.error,
  startedAt: row.startedAt,
});

/**
 * Every attempt of these deliveries (of the account, when one is given): their webhook_attempts
 * rows and the successes their rows hold, by event id, then attempt number, newest first.
 */
export async function deliveryAttempts(
  prisma: PrismaClient,
  eventIds: readonly string[],
  accountId?: string,
): Promise<RecordedAttempt[]> {
  const where = { eventId: { in: [...eventIds] }, ...(accountId !== undefined && { accountId }) };
  const [rows, deliveries] = await Promise.all([
    prisma.webhookAttempt.findMany({ where }),
    prisma.webhookDelivery.findMany({ where: { ...where, successOnRow: true }, select: SUCCESS_COLUMNS }),
  ]);
  const successes = deliveries.map(successOnDelivery).filter((a) => a !== null);
  return [...rows.map(fromRow), ...successes].sort((a, b) =>
    a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : b.attempt - a.attempt,
  );
}
