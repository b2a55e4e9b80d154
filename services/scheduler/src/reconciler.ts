import type pg from "pg";
import type { Logger } from "@sms/logger";
import type { DispatchOutbox } from "@sms/message-acceptance";
import { dueByIdBound } from "@sms/message-state";
import type { DispatchProducer, Priority } from "@sms/queues";
import { startLoop, type Loop } from "@sms/service-runtime";
import type { SchedulerMetrics } from "./metrics";

export interface ReconcileOptions {
  intervalMs: number;
  /** A queued message whose row is older than this is re-enqueued. */
  staleAfterMs: number;
  batchSize: number;
  maxPerTick: number;
  /** Resolves when Redis answers, rejects fast when it does not (a "command" connection's ping). */
  pingRedis: () => Promise<unknown>;
}

// Keyset paging over (updated_at, id): each page starts after the last row of the one
// before, so a tick reads a bounded slice and the next tick continues from there.
const STALE_QUEUED = `
SELECT id, updated_at, account_id, priority::text AS priority FROM messages
WHERE status = 'queued'
  AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
  AND (updated_at, id) > (COALESCE($2::timestamptz, '-infinity'::timestamptz), COALESCE($3::text, ''))
  AND id < $5
ORDER BY updated_at, id
LIMIT $4`;

/** The reconciler's page of queued messages, for the test of the index it reads. */
export const RECONCILER_STATEMENTS = { STALE_QUEUED } as const;

/**
 * Accepted messages that are in no queue (Redis lost its data, a job was deleted)
 * are queued again, so losing Redis loses no message (docs/README.md#nothing-accepted-is-lost). Every tick:
 *
 * 1. the dispatch outbox relay: rows older than its stale age are enqueued and deleted;
 * 2. messages `queued` for longer than `staleAfterMs` that no dispatch job holds (their
 *    claims in Redis: a job holds its messages while it waits, is delayed or runs) are
 *    enqueued again. A throttled account's messages waiting hours for their turn in a
 *    delayed job are held, so they are not enqueued a second time; after a Redis flush
 *    nothing is held and everything queued is enqueued again.
 *
 * The contract with the dispatcher: a job may still arrive for a message that has
 * moved on (a re-enqueue racing the job's completion), so it claims the message, does
 * nothing unless it is still queued, and submits only segments not yet submitted.
 */
export function startReconciler(
  pool: pg.Pool,
  outbox: DispatchOutbox,
  producer: DispatchProducer,
  metrics: SchedulerMetrics,
  logger: Logger,
  options: ReconcileOptions,
): Loop {
  let cursor: { updatedAt: Date; id: string } | null = null;

  return startLoop({
    name: "reconciler",
    intervalMs: options.intervalMs,
    logger,
    onError: () => metrics.reconcileErrors.inc(),
    async tick(isStopping) {
      metrics.reconcileTicks.inc();
      // The queue connection waits for Redis indefinitely, and relayStale holds a
      // transaction and row locks while it enqueues: with Redis down, skip the tick
      // instead of parking a database connection until Redis comes back.
      await options.pingRedis();
      let relayed = 0;
      for (let moved = -1; moved !== 0 && !isStopping() && relayed < options.maxPerTick;) {
        moved = await outbox.relayStale(options.batchSize);
        relayed += moved;
      }
      metrics.outboxRelayed.inc(relayed);

      let reenqueued = 0;
      // Bounded by what a tick reads, held or not: a long throttled campaign is many held rows.
      for (let scanned = 0; !isStopping() && scanned < options.maxPerTick;) {
        const { rows } = await pool.query<{
          id: string;
          updated_at: Date;
          account_id: string;
          priority: Priority;
        }>(
          // Unnamed, with the bound of the weeks due so far (dueByIdBound).
          STALE_QUEUED,
          [
            options.staleAfterMs,
            cursor?.updatedAt ?? null,
            cursor?.id ?? null,
            options.batchSize,
            dueByIdBound(),
          ],
        );
        scanned += rows.length;
        if (rows.length > 0) {
          reenqueued += await producer.enqueueUnheld(
            rows.map((row) => ({ messageId: row.id, accountId: row.account_id, priority: row.priority })),
          );
          const last = rows[rows.length - 1]!;
          cursor = { updatedAt: last.updated_at, id: last.id };
        }
        if (rows.length < options.batchSize) {
          cursor = null; // the sweep reached the end: the next one starts from the oldest again
          break;
        }
      }
      metrics.reenqueued.inc(reenqueued);
      if (relayed) logger.info("dispatch outbox relayed messages", { count: relayed });
      if (reenqueued) logger.info("re-enqueued queued messages that no job held", { count: reenqueued });
    },
  });
}
