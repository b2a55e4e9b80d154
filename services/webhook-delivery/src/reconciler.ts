import type pg from "pg";
import type { Logger } from "@sms/logger";
import type { WebhookDeliverProducer } from "@sms/queues";
import { startLoop } from "@sms/service-runtime";

// Due now, so the new job can claim them, and not overdue again for another staleMs: a
// delivery is queued again at most once per staleMs, even when its job still exists.
const REQUEUE_OVERDUE = `
WITH overdue AS (
  SELECT event_id FROM webhook_deliveries
  WHERE status = 'pending' AND next_attempt_at < now() - $1 * interval '1 millisecond'
  ORDER BY next_attempt_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
)
UPDATE webhook_deliveries AS d SET next_attempt_at = now(), claim = NULL
FROM overdue WHERE d.event_id = overdue.event_id
RETURNING d.event_id, d.account_id`;

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
    const { rows } = await options.pool.query<{ event_id: string; account_id: string }>({
      name: "webhook-requeue-overdue",
      text: REQUEUE_OVERDUE,
      values: [options.staleMs, batchSize],
    });
    await options.producer.enqueue(rows.map((row) => ({ eventId: row.event_id, accountId: row.account_id })));
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
