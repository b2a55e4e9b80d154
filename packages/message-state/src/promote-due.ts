import { newId } from "@sms/ids";
import { applyTransitions } from "./apply-transition";
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
// accepted) is not queued: the row is locked here and returned as opted_out, for the caller's
// transaction to fail it (docs/decisions.md#opt-out).
const PROMOTE = `
WITH due AS (
  SELECT id,
         EXISTS (SELECT 1 FROM suppressions AS s WHERE s.account_id = messages.account_id AND s.number = messages.to_number)
           AS opted_out
  FROM messages
  WHERE status = 'scheduled' AND scheduled_at <= COALESCE($1::timestamptz, now())
    AND (expires_at IS NULL OR expires_at > COALESCE($1::timestamptz, now()))
  ORDER BY scheduled_at
  LIMIT $2
  FOR NO KEY UPDATE OF messages SKIP LOCKED
), promoted AS (
  UPDATE messages AS m SET status = 'queued', status_sequence = m.status_sequence + 1, updated_at = now()
  FROM due WHERE m.id = due.id AND m.status = 'scheduled' AND NOT due.opted_out
  RETURNING m.id, m.account_id, m.status_sequence, m.to_number, m.sender_id, m.segment_count, m.batch_id, m.otp_id,
            m.client_ref, m.priority::text AS priority
)
SELECT *, false AS opted_out FROM promoted
UNION ALL
SELECT id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true FROM due WHERE opted_out`;

// History, webhook outbox and dispatch outbox of every promoted message, set-based.
const RECORD_PROMOTED = `
WITH p AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[])
    AS t(message_id, sequence, account_id, event_id, payload)
), events_in AS (
  INSERT INTO message_events (message_id, sequence, status, previous_status, occurred_at)
  SELECT message_id, sequence, 'queued', 'scheduled', now() FROM p
), outbox_in AS (
  INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
  SELECT event_id, account_id, message_id, 'message.queued', sequence, payload::jsonb FROM p
)
INSERT INTO dispatch_outbox (message_id) SELECT message_id FROM p ON CONFLICT DO NOTHING`;

interface PromotedRow {
  id: string;
  account_id: string;
  status_sequence: number;
  to_number: string;
  sender_id: string;
  segment_count: number;
  batch_id: string | null;
  otp_id: string | null;
  client_ref: string | null;
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
 * scheduled → queued for every due message (oldest `scheduled_at` first, at most
 * `limit`), with their history rows, `message.queued` events and dispatch_outbox rows,
 * in one transaction; a message whose number is on its account's suppression list by then
 * fails instead (scheduled → failed RECIPIENT_OPTED_OUT, refunded, never dispatched).
 * Returns the promoted messages for the caller to enqueue (and then
 * delete from dispatch_outbox, e.g. with DispatchOutbox.handOff). Safe to run on
 * several replicas at once: no message is promoted twice.
 *
 * `db` is a pool (a transaction of its own) or a PoolClient inside the caller's open
 * transaction (BEGIN issued: the row locks must last until the history is written).
 */
export async function promoteDueScheduled(
  db: Queryable,
  options: PromoteOptions = {},
): Promise<PromotedMessage[]> {
  const limit = options.limit ?? 1000;
  return inTransaction(db, async (client) => {
    const { rows } = await client.query<PromotedRow>({
      name: "message-state-promote-due",
      text: PROMOTE,
      values: [options.now ?? null, limit],
    });
    if (rows.length === 0) return [];
    const optedOut = rows.filter((r) => r.opted_out);
    const promoted = rows.filter((r) => !r.opted_out);
    // A number that opted out after the message was accepted: it fails here, with its
    // credits back, instead of reaching a carrier (docs/decisions.md#opt-out).
    if (optedOut.length > 0)
      await applyTransitions(
        client,
        optedOut.map((r) => ({
          messageId: r.id,
          to: "failed" as const,
          at: new Date(),
          errorCode: "RECIPIENT_OPTED_OUT",
          errorMessage: "The recipient opted out (STOP) before the message was due.",
        })),
      );
    if (promoted.length === 0) return [];
    await client.query({
      name: "message-state-record-promoted",
      text: RECORD_PROMOTED,
      values: [
        promoted.map((r) => r.id),
        promoted.map((r) => r.status_sequence),
        promoted.map((r) => r.account_id),
        promoted.map(() => newId("evt")),
        promoted.map((r) =>
          // The same shape as applyTransition's events; never the message text.
          JSON.stringify({
            to: r.to_number,
            status: "queued",
            previous_status: "scheduled",
            sender_id: r.sender_id,
            segments: r.segment_count,
            batch_id: r.batch_id,
            otp_id: r.otp_id,
            client_ref: r.client_ref,
            error_code: null,
            error_message: null,
            sent_at: null,
            delivered_at: null,
          }),
        ),
      ],
    });
    return promoted.map((r) => ({ messageId: r.id, accountId: r.account_id, priority: r.priority }));
  });
}
