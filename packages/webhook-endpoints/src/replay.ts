import type pg from "pg";
import type { WebhookDeliverProducer } from "@sms/queues";

export type ReplayFilter =
  { eventIds: readonly string[]; accountId?: string } | { accountId: string; from: Date; until?: Date };

// Only failed deliveries are replayed; `baseAttempt` restarts the schedule from here.
const RESET = `
UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), last_error = NULL
WHERE status = 'failed'
  AND ($1::text[] IS NULL OR event_id = ANY($1::text[]))
  AND ($2::text IS NULL OR account_id = $2::text)
  AND ($3::timestamptz IS NULL OR created_at >= $3::timestamptz)
  AND ($4::timestamptz IS NULL OR created_at < $4::timestamptz)
RETURNING event_id, account_id, attempts`;

/**
 * Sends failed deliveries again (by event id, or an account's failed deliveries created
 * in [from, until), or from `from` on when until is not given): each goes back to
 * pending, keeps its webhook-id, and runs the whole retry schedule again. Returns how
 * many were replayed.
 */
export async function replayFailedDeliveries(
  pool: pg.Pool,
  producer: WebhookDeliverProducer,
  filter: ReplayFilter,
): Promise<number> {
  const values =
    "eventIds" in filter
      ? [filter.eventIds, filter.accountId ?? null, null, null]
      : [null, filter.accountId, filter.from, filter.until ?? null];
  const { rows } = await pool.query<{ event_id: string; account_id: string; attempts: number }>(
    RESET,
    values,
  );
  await producer.enqueue(
    rows.map((row) => ({ eventId: row.event_id, accountId: row.account_id, baseAttempt: row.attempts })),
    { jobIdSuffix: `replay${Date.now()}` },
  );
  return rows.length;
}
