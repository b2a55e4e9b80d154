import { listPartitions } from "@sms/db";
import { applyTransitions } from "./apply-transition";
import { dueByIdBound, waitingSinceIdBound } from "./message-weeks";
import { inTransaction, type Queryable } from "./queryable";

export interface PromoteOptions {
  /** Promote messages scheduled at or before this time. @defaultValue the database clock (`now()`), shared by every replica */
  now?: Date;
  /** Most messages per call. @defaultValue 1000 */
  limit?: number;
}

// SKIP LOCKED: replicas running at once take disjoint rows, and a row that a cancel has
// locked is left for the next tick instead of waited on. FOR NO KEY UPDATE re-checks the
// WHERE clause on the newest row version, so a message canceled meanwhile is not taken.
// A message whose validity has ended is never queued: the validity sweep fails it EXPIRED.
// A number on its account's suppression list by now (it replied STOP after the message was
// accepted) is flagged: it fails instead of being queued (docs/decisions.md#opt-out).
const LOCK_DUE = `
SELECT id, account_id, priority::text AS priority,
       EXISTS (SELECT 1 FROM suppressions AS s WHERE s.account_id = messages.account_id AND s.number = messages.to_number)
         AS opted_out
FROM messages
WHERE status = 'scheduled' AND scheduled_at <= COALESCE($1::timestamptz, now())
  AND (expires_at IS NULL OR expires_at > COALESCE($1::timestamptz, now()))
  AND id < $3 AND (id >= $4 OR id < $5)
ORDER BY scheduled_at
LIMIT $2
FOR NO KEY UPDATE OF messages SKIP LOCKED`;

// The ids' bounds ($3–$5) leave out of the plan every week that can hold no message to promote
// (planned for each run, each retained week cost about 0.1 ms a run, five runs a second:
// docs/benchmarks.md#idle). A message's id is the time it is due (newMessageId) and its validity
// ends at most VALIDITY_MAX_SECONDS later, so a scheduled message due before waitingSinceIdBound
// ($4) is past its validity: the WHERE above leaves it to the validity sweep whatever the bound.
// The rows from before the message tables were partitioned have ids of their creation time, below
// the bound of their partition ($5), and any of them may be due now.
/** The statement that finds due messages, for the test of the index it reads. */
export const PROMOTE_STATEMENTS = { LOCK_DUE } as const;

interface DueRow {
  id: string;
  account_id: string;
  priority: "high" | "normal" | "bulk";
  opted_out: boolean;
}

/** A message that became queued: what its dispatch job needs. */
export interface PromotedMessage {
  messageId: string;
  accountId: string;
  priority: "high" | "normal" | "bulk";
}

/**
 * scheduled → queued for every due message (oldest `scheduled_at` first, at most `limit`),
 * as any other status change is made (applyTransitions: the history row, the
 * `message.queued` event and the dispatch_outbox row, in one statement); a message whose
 * number is on its account's suppression list by then fails instead (scheduled → failed
 * RECIPIENT_OPTED_OUT, refunded, never dispatched). Returns the promoted messages for the
 * caller to enqueue (and then delete from dispatch_outbox, e.g. with DispatchOutbox.handOff).
 * Safe to run on several replicas at once: no message is promoted twice.
 *
 * `db` is a pool (a transaction of its own) or a PoolClient inside the caller's open
 * transaction (BEGIN issued: the row locks must last until the history is written).
 */
export async function promoteDueScheduled(
  db: Queryable,
  options: PromoteOptions = {},
): Promise<PromotedMessage[]> {
  const limit = options.limit ?? 1000;
  // Before the transaction: on a pool, its look-up takes a connection of its own, which must not
  // wait for the one the transaction holds.
  const creationTimeBound = await creationTimeIdBound(db);
  return inTransaction(db, async (client) => {
    // Unnamed, planned for the weeks that can hold a due message (above).
    const now = options.now ?? Date.now();
    const dueBound = dueByIdBound(now);
    const { rows } = await client.query<DueRow>(LOCK_DUE, [
      options.now ?? null,
      limit,
      dueBound,
      waitingSinceIdBound(now),
      // Not partitioned yet: any id may tell its creation time, so none is left out.
      creationTimeBound ?? dueBound,
    ]);
    if (rows.length === 0) return [];
    const at = new Date();
    const results = await applyTransitions(
      client,
      rows.map((row) =>
        row.opted_out
          ? {
              messageId: row.id,
              to: "failed" as const,
              at,
              errorCode: "RECIPIENT_OPTED_OUT",
              errorMessage: "The recipient opted out (STOP) before the message was due.",
            }
          : { messageId: row.id, to: "queued" as const, at },
      ),
    );
    // Every row is locked and scheduled, so every change applies; a failed one is not queued.
    return rows
      .filter((row, i) => !row.opted_out && results[i]!.applied)
      .map((row) => ({ messageId: row.id, accountId: row.account_id, priority: row.priority }));
  });
}

const creationTimeBounds = new WeakMap<Queryable, Promise<string | null>>();

/**
 * The bound below which message ids tell their creation time, not their due time: the upper
 * bound of the partition of the rows from before the conversion (MINVALUE to it); "" when the
 * table is partitioned without one (it was dropped); null when the table is not partitioned yet
 * (every id may be a creation time). Read once per pool: that bound never changes, and once its
 * partition is dropped a bound read before names no row.
 */
function creationTimeIdBound(db: Queryable): Promise<string | null> {
  let bound = creationTimeBounds.get(db);
  if (!bound) {
    bound = listPartitions(db, "messages").then((partitions) =>
      partitions.length === 0
        ? null
        : (partitions.find((p) => !p.isDefault && p.fromBound === null)?.toBound ?? ""),
    );
    bound.catch(() => creationTimeBounds.delete(db));
    creationTimeBounds.set(db, bound);
  }
  return bound;
}
