// Timing of bench:fairness's messages as the bench sees them: PostgreSQL polled every POLL_MS for
// each message's status and its message.delivered delivery row, then latency lines and where the
// slowest ones waited.
import type pg from "pg";

/** How often the bench polls PostgreSQL. */
export const POLL_MS = 50;
/** How long a message may take to be delivered before the bench gives up on it. */
export const TIMEOUT_MS = Number(process.env.BENCH_FAIRNESS_TIMEOUT_S ?? 120) * 1000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface TimedSend {
  messageId: string;
  sentAt: number;
  /** When the request (POST /v1/otp/send, or C's POST /v1/sms/send) answered. */
  answeredAt: number;
}

/**
 * message id → when the bench first saw it `delivered` (`failed` ones listed apart), watching
 * while they are still being sent: until `sending` settles and every one is final, or the deadline.
 */
export async function watchDelivered(
  db: pg.Client,
  otps: TimedSend[],
  sending: Promise<unknown>,
  /** Also watched, when given: message id → when its message.delivered delivery row was first seen. */
  deliveryRowAt?: Map<string, number>,
) {
  const delivered = new Map<string, number>();
  const failed = new Set<string>();
  let sent = false;
  let sendError: unknown;
  void sending.then(
    () => (sent = true),
    (error: unknown) => {
      sent = true;
      sendError = error;
    },
  );
  let deadline = Infinity;
  while (!sent || delivered.size + failed.size < otps.length) {
    if (sent && deadline === Infinity) deadline = Date.now() + TIMEOUT_MS;
    if (Date.now() > deadline) break;
    const pending = otps.map((otp) => otp.messageId).filter((id) => !delivered.has(id) && !failed.has(id));
    const { rows } = await db.query<{ id: string; status: string }>(
      "SELECT id, status FROM messages WHERE id = ANY($1) AND status IN ('delivered', 'failed')",
      [pending],
    );
    const now = Date.now();
    for (const row of rows) {
      if (row.status === "delivered") delivered.set(row.id, now);
      else failed.add(row.id);
    }
    if (deliveryRowAt) await watchDeliveryRows(db, [...delivered.keys()], deliveryRowAt);
    await sleep(POLL_MS);
  }
  if (sendError) throw sendError;
  return { delivered, failed };
}

/** message id → when the bench first saw its message.delivered webhook_deliveries row (written by the event relay). */
export async function watchDeliveryRows(db: pg.Client, messageIds: string[], rowAt: Map<string, number>) {
  const unseen = messageIds.filter((id) => !rowAt.has(id));
  if (unseen.length === 0) return;
  const { rows } = await db.query<{ message_id: string }>(
    "SELECT message_id FROM webhook_deliveries WHERE message_id = ANY($1) AND event_type = 'message.delivered'",
    [unseen],
  );
  const now = Date.now();
  for (const row of rows) rowAt.set(row.message_id, now);
}

/**
 * Where the five slowest message.delivered webhooks spent their time, as the
 * bench saw it (polled every POLL_MS): the message delivered until its delivery row (the event
 * relay), and the row until the receiver had the webhook (webhook-delivery).
 */
function printSlowestWebhooks(
  otps: TimedSend[],
  at: { delivered: Map<string, number>; row: Map<string, number>; webhook: Map<string, number> },
) {
  const slowest = otps
    .filter((otp) => at.webhook.has(otp.messageId) && at.delivered.has(otp.messageId))
    .sort((a, b) => at.webhook.get(b.messageId)! - b.sentAt - (at.webhook.get(a.messageId)! - a.sentAt))
    .slice(0, 5);
  if (slowest.length === 0) return;
  console.log(
    "  the five slowest webhooks: request → webhook: → seen delivered / → delivery row seen / → received",
  );
  for (const { messageId, sentAt } of slowest) {
    const [delivered, row, webhook] = [at.delivered, at.row, at.webhook].map((times) => times.get(messageId));
    console.log(
      `    ${String(webhook! - sentAt).padStart(6)} ms: ${delivered! - sentAt} / ` +
        `${row === undefined ? "?" : row - delivered!} / ${row === undefined ? "?" : webhook! - row} ms`,
    );
  }
}

export function describe(
  label: string,
  otps: TimedSend[],
  doneAt: (messageId: string) => number | undefined,
): string {
  const latencies = otps
    .map((otp) => (doneAt(otp.messageId) ?? NaN) - otp.sentAt)
    .filter((ms) => !Number.isNaN(ms))
    .sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.max(0, Math.ceil(q * latencies.length) - 1)] ?? NaN;
  const missing = otps.length - latencies.length;
  return (
    `  ${label.padEnd(44)} p50 ${at(0.5).toFixed(0).padStart(6)} ms   p99 ${at(0.99).toFixed(0).padStart(6)} ms   max ${at(1).toFixed(0).padStart(6)} ms` +
    (missing ? `   (${missing} of ${otps.length} not delivered within ${TIMEOUT_MS / 1000} s)` : "")
  );
}

/**
 * Where the five slowest messages spent their time: the request until its
 * answer (acceptance), the answer until the submit's response was recorded (sent_at: the
 * dispatch queue, the dispatcher, the carrier), and from there until the bench saw it delivered.
 */
export async function printSlowest(
  db: pg.Client,
  otps: TimedSend[],
  doneAt: (messageId: string) => number | undefined,
) {
  const slowest = otps
    .filter((otp) => doneAt(otp.messageId) !== undefined)
    .sort((a, b) => doneAt(b.messageId)! - b.sentAt - (doneAt(a.messageId)! - a.sentAt))
    .slice(0, 5);
  if (slowest.length === 0) return;
  const { rows } = await db.query<{ id: string; sent_at: Date | null }>(
    "SELECT id, sent_at FROM messages WHERE id = ANY($1)",
    [slowest.map((otp) => otp.messageId)],
  );
  const sentAt = new Map(rows.map((row) => [row.id, row.sent_at?.getTime()]));
  console.log("  the five slowest during the campaign: request → answered / → submitted / → seen delivered");
  for (const otp of slowest) {
    const sent = sentAt.get(otp.messageId);
    console.log(
      `    ${String(doneAt(otp.messageId)! - otp.sentAt).padStart(6)} ms: ${otp.answeredAt - otp.sentAt} / ` +
        `${sent === undefined ? "?" : sent - otp.answeredAt} / ${sent === undefined ? "?" : doneAt(otp.messageId)! - sent} ms` +
        `, sent ${((otp.sentAt - otps[0]!.sentAt) / 1000).toFixed(1)} s into the round`,
    );
  }
}

/** The five slowest to `delivered`, and, with the webhook times, the five slowest to their webhook. */
export async function printWhereSlowestWaited(
  db: pg.Client,
  sends: TimedSend[],
  delivered: Map<string, number>,
  webhooks?: { row: Map<string, number>; webhook: Map<string, number> },
): Promise<void> {
  await printSlowest(db, sends, (id) => delivered.get(id));
  if (webhooks) printSlowestWebhooks(sends, { delivered, ...webhooks });
}
