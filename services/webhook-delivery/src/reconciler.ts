import type pg from "pg";
import { inTransaction } from "@sms/db";
import type { Logger } from "@sms/logger";
import { webhookClassOfPriority, type WebhookDeliverProducer } from "@sms/queues";
import { startLoop } from "@sms/service-runtime";

// The oldest overdue deliveries, locked: every day's small partial index of pending rows is read.
const PICK_OVERDUE = `
SELECT event_id FROM webhook_deliveries
WHERE status = 'pending' AND next_attempt_at < now() - $1 * interval '1 millisecond'
ORDER BY next_attempt_at
LIMIT $2
FOR UPDATE SKIP LOCKED`;

// Due now, so the new job can claim them, and not overdue again for another staleMs: a
// delivery is queued again at most once per staleMs, even when its job still exists. By the
// ids picked, in a statement of its own: = ANY reads their days only (the table is partitioned
// by event id), where a join to the pick could read every day.
// Each goes back to the queue of its class: its message's priority, one key lookup a row.
const MAKE_DUE = `
UPDATE webhook_deliveries AS d SET next_attempt_at = now(), claim = NULL
WHERE event_id = ANY($1::text[])
RETURNING event_id, account_id,
          (SELECT m.priority::text FROM messages AS m WHERE m.id = d.message_id) AS priority`;

/**
 * Queues again, as batch jobs, the pending deliveries whose job is gone (a Redis flush, an
 * enqueue that failed after the relay's commit, a worker that died holding a claim until
 * it ran out). A delivery whose job still exists gets a second job: whichever claims it
 * first sends it, the other finds it claimed or done.
 */
export function startWebhookReconciler(options: {
  pool: pg.Pool;
  producer: WebhookDeliverProducer;
  logger: Logger;
  staleMs: number;
  intervalMs: number;
  batchSize?: number;
}): { runOnce(): Promise<number>; stop(): Promise<void> } {
  const batchSize = options.batchSize ?? 1000;
  const runOnce = async () => {
    // Unnamed statements, planned for each run: see DeliveryStore.
    const rows = await inTransaction(options.pool, async (client) => {
      const picked = await client.query<{ event_id: string }>({
        text: PICK_OVERDUE,
        values: [options.staleMs, batchSize],
      });
      if (picked.rows.length === 0) return [];
      const due = await client.query<{ event_id: string; account_id: string; priority: string | null }>({
        text: MAKE_DUE,
        values: [picked.rows.map((row) => row.event_id)],
      });
      return due.rows;
    });
    await options.producer.enqueue(
      rows.map((row) => ({
        eventId: row.event_id,
        accountId: row.account_id,
        webhookClass: webhookClassOfPriority(row.priority),
      })),
    );
    if (rows.length > 0) options.logger.info("re-queued overdue webhook deliveries", { count: rows.length });
    return rows.length;
  };
  const loop = startLoop({
    name: "webhook reconciler",
    intervalMs: options.intervalMs,
    firstTickAfterMs: options.intervalMs,
    logger: options.logger,
    tick: runOnce,
  });
  return { runOnce, stop: () => loop.stop() };
}
