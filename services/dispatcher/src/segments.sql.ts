import type pg from "pg";
import { inTransaction, retryOnDeadlock } from "@sms/db";
import { applyTransition, applyTransitions } from "@sms/message-state";
import { idRange } from "@sms/ids";
import type { Priority } from "@sms/queues";
import { matchPendingReceiptsFor, receiptLockKey } from "@sms/carrier-receipts";

// Every statement here names its message weeks besides any join on the ids, and is sent unnamed:
// the message tables are partitioned by the week of the id, and a plan made for the ids reads
// only their weeks. A prepared statement's generic plan would read every week, as `= ANY($1)`
// prunes partitions only while planning for its values (docs/decisions.md#partitions). A probe
// joined on an id is bounded by the smallest and the largest id instead of `= ANY($1)`: beside
// the join the planner takes the list as each probe's index condition and sorts it again for
// every row.

export interface DispatchMessage {
  id: string;
  accountId: string;
  to: string;
  senderId: string;
  body: string;
  /** The real text of an OTP message, sealed (body is redacted); null once it left queued. */
  bodySealed: string | null;
  otpId: string | null;
  status: string;
  segmentCount: number;
  messagesPerSecond: number;
  priority: Priority;
  /** When its validity ends (docs/messages.md#validity); null for a message older than validity. */
  expiresAt: Date | null;
  /** True when its validity had ended at the load, by the database's clock (the sweeps'). */
  expired: boolean;
}

export interface SegmentRow {
  seq: number;
  status: "pending" | "submitting" | "submitted" | "delivered" | "failed";
  carrierId: string | null;
  /** Submits whose fate is unknown so far, not counting a 'submitting' one left by a timeout or crash. */
  unanswered: number;
}

/** A message to dispatch with its segment rows so far. */
export type LoadedMessage = DispatchMessage & { segments: SegmentRow[] };

/**
 * The messages, their account's messages/s and their segment rows so far: one read for
 * a dispatch job's batch (no write). Answers in `ids` order; undefined for an unknown id.
 */
export async function loadMessages(pool: pg.Pool, ids: string[]): Promise<Array<LoadedMessage | undefined>> {
  if (ids.length === 0) return [];
  const { first, last } = idRange(ids);
  const { rows } = await pool.query({
    text: `SELECT m.id, m.account_id, m.to_number, m.sender_id, m.body, m.body_sealed, m.otp_id, m.status, m.segment_count, m.priority::text AS priority, a.messages_per_second,
                  m.expires_at, COALESCE(m.expires_at <= now(), false) AS expired,
                  COALESCE((SELECT json_agg(json_build_object('seq', s.seq, 'status', s.status, 'carrierId', s.carrier_id, 'unanswered', s.unanswered_submits) ORDER BY s.seq)
                            FROM message_segments s WHERE s.message_id = m.id AND s.message_id BETWEEN $2 AND $3), '[]') AS segments
           FROM messages m JOIN accounts a ON a.id = m.account_id WHERE m.id = ANY($1::text[])`,
    values: [ids, first, last],
  });
  const byId = new Map(
    rows.map((row): [string, LoadedMessage] => [
      row.id,
      {
        segments: row.segments as SegmentRow[],
        id: row.id,
        accountId: row.account_id,
        to: row.to_number,
        senderId: row.sender_id,
        body: row.body,
        bodySealed: row.body_sealed,
        otpId: row.otp_id,
        status: row.status,
        segmentCount: row.segment_count,
        messagesPerSecond: row.messages_per_second,
        priority: row.priority,
        expiresAt: row.expires_at,
        expired: row.expired,
      },
    ]),
  );
  return ids.map((id) => byId.get(id));
}

export interface SubmittingMark {
  messageId: string;
  seq: number;
  carrierId: string;
}

/**
 * Marks segments as on the wire, creating their rows on first dispatch: after a crash,
 * 'submitting' means "outcome unknown". Batched: one statement for many segments. Only
 * segments of messages still queued are marked (answered true, in order): the message
 * rows are share-locked in the same statement, so a concurrent change of status (the
 * OTP sweep failing an expired code's SMS takes the row FOR UPDATE) either commits first
 * and the mark is refused, or waits until the segment reads 'submitting' and then leaves
 * the message alone. Nor once its validity has ended, by the database's clock: nothing goes
 * out after that, and the validity sweep fails it EXPIRED (docs/messages.md#validity).
 * `submittedBy` names this process on the segment row. A segment still 'submitting' was last
 * submitted with no answer (a response timeout, a lost connection, a crash): its
 * unanswered_submits counts it, persisted across jobs, reconciler cycles and restarts
 * (dispatchMessage stops at SEGMENT_MAX_UNANSWERED_SUBMITS).
 */
export async function markSubmitting(
  pool: pg.Pool,
  marks: SubmittingMark[],
  submittedBy: string,
): Promise<boolean[]> {
  const { rows } = await pool.query<{ message_id: string; seq: number }>({
    text: `WITH t AS (
             SELECT DISTINCT * FROM unnest($1::text[], $2::int[], $3::text[]) AS t(message_id, seq, carrier_id)
           ), queued AS (
             SELECT id FROM messages WHERE id = ANY($1::text[]) AND status = 'queued'
               AND (expires_at IS NULL OR expires_at > now()) ORDER BY id FOR SHARE
           )
           INSERT INTO message_segments (message_id, seq, status, attempts, carrier_id, submitted_by, submit_started_at)
           SELECT t.message_id, t.seq, 'submitting', 1, t.carrier_id, $4, now() FROM t JOIN queued ON queued.id = t.message_id
           ON CONFLICT (message_id, seq) DO UPDATE SET status = 'submitting', attempts = message_segments.attempts + 1,
             unanswered_submits = message_segments.unanswered_submits + (message_segments.status = 'submitting')::int,
             carrier_id = EXCLUDED.carrier_id, submitted_by = EXCLUDED.submitted_by, submit_started_at = now()
           WHERE message_segments.status IN ('pending', 'submitting')
           RETURNING message_id, seq`,
    values: [
      marks.map((m) => m.messageId),
      marks.map((m) => m.seq),
      marks.map((m) => m.carrierId),
      submittedBy,
    ],
  });
  const marked = new Set(rows.map((row) => `${row.message_id}\u0000${row.seq}`));
  return marks.map((m) => marked.has(`${m.messageId}\u0000${m.seq}`));
}

/** The submit never left us (no bound session): back to pending. */
export async function markNotSent(pool: pg.Pool, messageId: string, seq: number): Promise<void> {
  await pool.query(
    "UPDATE message_segments SET status = 'pending' WHERE message_id = $1 AND seq = $2 AND status = 'submitting'",
    [messageId, seq],
  );
}

export interface SubmitRecord {
  messageId: string;
  seq: number;
  carrierId: string;
  /** null: the carrier accepted it without a message_id (no receipt can match it). */
  carrierMessageId: string | null;
  /** The key its receipts will quote (receiptKeyForSubmit with the carrier's form); null without an id. */
  receiptKey: string | null;
  /** The message's last outstanding segment: move it queued → sent in the same transaction. */
  completesMessage: boolean;
}

/**
 * Records carrier ids for many segments in one transaction, under the advisory lock
 * dlr-ingest takes per id (sorted: two lockers never deadlock), then applies receipts
 * that beat their submit response and moves completed messages to sent: one statement
 * per step for the whole batch.
 */
export async function recordSubmitted(pool: pg.Pool, records: SubmitRecord[]): Promise<void> {
  // A deadlock (PostgreSQL aborts one side) is retried: failing the batch would leave its
  // segments 'submitting', and their retried jobs would submit them a second time.
  if (records.length === 0) return;
  return retryOnDeadlock(() => recordSubmittedOnce(pool, records));
}

async function recordSubmittedOnce(pool: pg.Pool, records: SubmitRecord[]): Promise<void> {
  const keys = [
    ...new Set(
      records.flatMap((r) => (r.receiptKey === null ? [] : [receiptLockKey(r.carrierId, r.receiptKey)])),
    ),
  ].sort();
  // One clock for submitted_at and sent_at: receipts' done times are clamped to submitted_at,
  // so delivered_at can never come out earlier than sent_at.
  const at = new Date();
  const { first, last } = idRange(records.map((r) => r.messageId));
  await inTransaction(pool, async (client) => {
    await client.query({
      name: "dispatch-lock-ids",
      // The same key as @sms/carrier-receipts' lockCarrierMessageId: carrier || ':' || id.
      text: "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n",
      values: [keys],
    });
    // The trigger sets each row's receipt_key from the carriers table: pending receipts are looked
    // up by that one (the same as ours unless the carrier's receipt_id_form changed meanwhile).
    const recorded = await client.query<{ carrier_id: string; receipt_key: string | null }>({
      text: `UPDATE message_segments AS s SET status = 'submitted', carrier_id = t.carrier_id, carrier_message_id = t.carrier_message_id, submitted_at = $5
             FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS t(message_id, seq, carrier_id, carrier_message_id)
             WHERE s.message_id = t.message_id AND s.message_id BETWEEN $6 AND $7 AND s.seq = t.seq
               AND s.status IN ('pending', 'submitting')
             RETURNING s.carrier_id, s.receipt_key`,
      values: [
        records.map((r) => r.messageId),
        records.map((r) => r.seq),
        records.map((r) => r.carrierId),
        records.map((r) => r.carrierMessageId),
        at,
        first,
        last,
      ],
    });
    const completed = [...new Set(records.filter((r) => r.completesMessage).map((r) => r.messageId))];
    await applyTransitions(
      client,
      completed.map((messageId) => ({ messageId, to: "sent" as const, at })),
    );
    // Receipts that beat their submit response: one look-up for every form of every id. After
    // the move to sent, so the message's history still reads queued → sent → delivered.
    await matchPendingReceiptsFor(
      client,
      recorded.rows
        .filter((row) => row.receipt_key !== null)
        .map((row) => ({ carrierId: row.carrier_id, receiptKey: row.receipt_key! })),
    );
  });
}

/** A segment the carrier refused for good, and its message failed with it (credits back if nothing reached a carrier). */
export async function failMessage(
  pool: pg.Pool,
  messageId: string,
  seq: number | null,
  errorCode: string,
  errorMessage: string,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    if (seq !== null) {
      await client.query(
        "UPDATE message_segments SET status = 'failed', error_code = $3, done_at = now() WHERE message_id = $1 AND seq = $2",
        [messageId, seq, errorCode],
      );
    }
    await applyTransition(client, { messageId, to: "failed", at: new Date(), errorCode, errorMessage });
  });
}

/**
 * A segment submitted SEGMENT_MAX_UNANSWERED_SUBMITS times without an answer: its message fails
 * with CARRIER_TIMEOUT. No credits back: the carrier may have taken it (the transition runs
 * while the segment still reads 'submitting', which the refund rule counts as reached).
 */
export async function failUnanswered(
  pool: pg.Pool,
  messageId: string,
  seq: number,
  submits: number,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await applyTransition(client, {
      messageId,
      to: "failed",
      at: new Date(),
      errorCode: "CARRIER_TIMEOUT",
      errorMessage: `The carrier answered none of ${submits} submits of segment ${seq}.`,
    });
    await client.query(
      `UPDATE message_segments SET status = 'failed', error_code = 'CARRIER_TIMEOUT', done_at = now(),
         unanswered_submits = $3 WHERE message_id = $1 AND seq = $2 AND status IN ('pending', 'submitting')`,
      [messageId, seq, submits],
    );
  });
}

/** queued → sent once every segment is with a carrier (a no-op when a receipt already moved it on). */
export async function markSent(pool: pg.Pool, messageId: string): Promise<void> {
  await inTransaction(pool, (client) => applyTransition(client, { messageId, to: "sent", at: new Date() }));
}
