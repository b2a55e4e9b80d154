import type pg from "pg";
import { inTransaction } from "@sms/db";
import { applyTransition } from "@sms/message-state";
import { carrierIdForms, matchPendingReceipts } from "@sms/receipts";

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
}

export interface SegmentRow {
  seq: number;
  status: "pending" | "submitting" | "submitted" | "delivered" | "failed";
  carrierId: string | null;
}

/** The message, its account's messages/s and its segment rows so far (one read, no write). */
export async function loadMessage(
  pool: pg.Pool,
  id: string,
): Promise<(DispatchMessage & { segments: SegmentRow[] }) | undefined> {
  const { rows } = await pool.query({
    name: "dispatch-load-message",
    text: `SELECT m.id, m.account_id, m.to_number, m.sender_id, m.body, m.body_sealed, m.otp_id, m.status, m.segment_count, a.messages_per_second,
                  COALESCE((SELECT json_agg(json_build_object('seq', s.seq, 'status', s.status, 'carrierId', s.carrier_id) ORDER BY s.seq)
                            FROM message_segments s WHERE s.message_id = m.id), '[]') AS segments
           FROM messages m JOIN accounts a ON a.id = m.account_id WHERE m.id = $1`,
    values: [id],
  });
  const row = rows[0];
  if (!row) return undefined;
  return {
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
  };
}

export interface SubmittingMark {
  messageId: string;
  seq: number;
  carrierId: string;
}

/**
 * Marks segments as on the wire, creating their rows on first dispatch: after a crash,
 * 'submitting' means "outcome unknown". Batched: one statement for many segments.
 */
export async function markSubmitting(pool: pg.Pool, marks: SubmittingMark[]): Promise<void> {
  await pool.query({
    name: "dispatch-mark-submitting",
    text: `INSERT INTO message_segments (message_id, seq, status, attempts, carrier_id)
           SELECT message_id, seq, 'submitting', 1, carrier_id FROM unnest($1::text[], $2::int[], $3::text[]) AS t(message_id, seq, carrier_id)
           ON CONFLICT (message_id, seq) DO UPDATE SET status = 'submitting', attempts = message_segments.attempts + 1, carrier_id = EXCLUDED.carrier_id
           WHERE message_segments.status IN ('pending', 'submitting')`,
    values: [marks.map((m) => m.messageId), marks.map((m) => m.seq), marks.map((m) => m.carrierId)],
  });
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
  carrierMessageId: string;
  /** The message's last outstanding segment: move it queued → sent in the same transaction. */
  completesMessage: boolean;
}

/**
 * Records carrier ids for many segments in one transaction, under the advisory lock
 * dlr-ingest takes per id (sorted: two lockers never deadlock), then applies receipts
 * that beat their submit response and moves completed messages to sent.
 */
export async function recordSubmitted(pool: pg.Pool, records: SubmitRecord[]): Promise<void> {
  const keys = [...new Set(records.map((r) => `${r.carrierId}:${r.carrierMessageId}`))].sort();
  // One clock for submitted_at and sent_at: receipts' done times are clamped to submitted_at,
  // so delivered_at can never come out earlier than sent_at.
  const at = new Date();
  await inTransaction(pool, async (client) => {
    await client.query({
      name: "dispatch-lock-ids",
      // The same key as @sms/receipts' lockCarrierMessageId: carrier || ':' || id.
      text: "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n",
      values: [keys],
    });
    await client.query({
      name: "dispatch-record-submitted",
      text: `UPDATE message_segments AS s SET status = 'submitted', carrier_id = t.carrier_id, carrier_message_id = t.carrier_message_id, submitted_at = $5
             FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS t(message_id, seq, carrier_id, carrier_message_id)
             WHERE s.message_id = t.message_id AND s.seq = t.seq AND s.status IN ('pending', 'submitting')`,
      values: [
        records.map((r) => r.messageId),
        records.map((r) => r.seq),
        records.map((r) => r.carrierId),
        records.map((r) => r.carrierMessageId),
        at,
      ],
    });
    // Every form of each id (carriers print them in hex or decimal) in one look-up.
    const forms = records.flatMap((r) =>
      carrierIdForms(r.carrierMessageId).map((form) => ({ record: r, form })),
    );
    const { rows } = await client.query<{ carrier_id: string; carrier_message_id: string }>({
      name: "dispatch-any-unmatched",
      text: `SELECT DISTINCT carrier_id, carrier_message_id FROM carrier_receipts
             WHERE outcome = 'unmatched' AND (carrier_id, carrier_message_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      values: [forms.map((f) => f.record.carrierId), forms.map((f) => f.form)],
    });
    // Rare: a receipt beat its submit response. matchPendingReceipts looks every form up again.
    const pending = new Set(rows.map((row) => `${row.carrier_id}\u0000${row.carrier_message_id}`));
    for (const record of records) {
      if (
        carrierIdForms(record.carrierMessageId).some((form) =>
          pending.has(`${record.carrierId}\u0000${form}`),
        )
      )
        await matchPendingReceipts(client, {
          carrierId: record.carrierId,
          carrierMessageId: record.carrierMessageId,
        });
    }
    for (const record of records)
      if (record.completesMessage)
        await applyTransition(client, { messageId: record.messageId, to: "sent", at });
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

/** queued → sent once every segment is with a carrier (a no-op when a receipt already moved it on). */
export async function markSent(pool: pg.Pool, messageId: string): Promise<void> {
  await inTransaction(pool, (client) => applyTransition(client, { messageId, to: "sent", at: new Date() }));
}
