import type pg from "pg";
import type { WebhookDeliverProducer } from "@sms/queues";

export type ReplayFilter =
  { eventIds: readonly string[]; accountId?: string } | { accountId: string; from: Date; until?: Date };

export interface ReplayResult {
  /** Deliveries queued again by this call. */
  replayed: number;
  /** Failed deliveries the filter still matches: the next call replays the next batch of them. */
  remaining: number;
}

const MATCHES = `status = 'failed'
  AND ($1::text[] IS NULL OR event_id = ANY($1::text[]))
  AND ($2::text IS NULL OR account_id = $2::text)
  AND ($3::timestamptz IS NULL OR created_at >= $3::timestamptz)
  AND ($4::timestamptz IS NULL OR created_at < $4::timestamptz)`;

// Only failed deliveries are replayed, oldest first, at most $5 of them (rows another
// replay holds are skipped, not waited for); `baseAttempt` restarts the schedule from here.
// MATERIALIZED: picked once (an IN (subquery) may be rescanned and pick more).
const RESET = `
WITH picked AS MATERIALIZED (
  SELECT event_id FROM webhook_deliveries WHERE ${MATCHES}
  ORDER BY created_at, event_id LIMIT $5 FOR UPDATE SKIP LOCKED)
UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now(), last_error = NULL
FROM picked WHERE d.event_id = picked.event_id
RETURNING d.event_id, d.account_id, d.attempts`;

const REMAINING = `SELECT count(*)::int AS remaining FROM webhook_deliveries WHERE ${MATCHES}`;

/**
 * Sends failed deliveries again (by event id, or an account's failed deliveries created
 * in [from, until), or from `from` on when until is not given): each goes back to
 * pending, keeps its webhook-id, and runs the whole retry schedule again. One call
 * replays at most `maxPerCall` (the oldest first), so one click or command cannot
 * re-queue an unbounded number in one statement; the rest stay failed, and the caller
 * replays them with further calls (`remaining` says how many are left).
 */
export async function replayFailedDeliveries(
  pool: pg.Pool,
  producer: WebhookDeliverProducer,
  filter: ReplayFilter,
  maxPerCall: number,
): Promise<ReplayResult> {
  const values =
    "eventIds" in filter
      ? [filter.eventIds, filter.accountId ?? null, null, null]
      : [null, filter.accountId, filter.from, filter.until ?? null];
  const { rows } = await pool.query<{ event_id: string; account_id: string; attempts: number }>(RESET, [
    ...values,
    maxPerCall,
  ]);
  // Batch jobs per account and schedule start, each with a claim of its own.
  await producer.enqueue(
    rows.map((row) => ({ eventId: row.event_id, accountId: row.account_id, baseAttempt: row.attempts })),
  );
  const left = await pool.query<{ remaining: number }>(REMAINING, values);
  return { replayed: rows.length, remaining: left.rows[0]!.remaining };
}
