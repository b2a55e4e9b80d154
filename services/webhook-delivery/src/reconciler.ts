import type pg from "pg";
import type { Logger } from "@sms/logger";
import type { WebhookDeliverProducer } from "@sms/queues";

const OVERDUE = `
SELECT event_id, account_id FROM webhook_deliveries
WHERE status = 'pending' AND next_attempt_at < now() - $1 * interval '1 millisecond'
ORDER BY next_attempt_at
LIMIT $2`;

/**
 * Queues again the pending deliveries whose job is gone (a Redis flush, an enqueue that
 * failed after the relay's commit). A delivery whose job still exists is not touched:
 * the job id is the event id and BullMQ ignores the repeat.
 */
export function startWebhookReconciler(options: {
  pool: pg.Pool;
  producer: WebhookDeliverProducer;
  logger: Logger;
  staleMs: number;
  intervalMs: number;
  batchSize?: number;
}): { runOnce(): Promise<number>; stop(): void } {
  const batchSize = options.batchSize ?? 1000;
  const runOnce = async () => {
    const { rows } = await options.pool.query<{ event_id: string; account_id: string }>({
      name: "webhook-reconcile-overdue",
      text: OVERDUE,
      values: [options.staleMs, batchSize],
    });
    await options.producer.enqueue(rows.map((row) => ({ eventId: row.event_id, accountId: row.account_id })));
    if (rows.length > 0) options.logger.info("re-queued overdue webhook deliveries", { count: rows.length });
    return rows.length;
  };
  const timer = setInterval(() => {
    runOnce().catch((error: unknown) =>
      options.logger.warn("webhook reconciler failed", { error: String(error) }),
    );
  }, options.intervalMs);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
