import type pg from "pg";
import { applyTransition } from "@sms/message-state";
import { lockCarrierMessageId, matchPendingReceipts } from "@sms/receipts";

export interface DispatchMessage {
  id: string;
  accountId: string;
  to: string;
  senderId: string;
  body: string;
  status: string;
  segmentCount: number;
  messagesPerSecond: number;
}

export interface SegmentRow {
  seq: number;
  status: "pending" | "submitting" | "submitted" | "delivered" | "failed";
  carrierId: string | null;
}

export async function loadMessage(pool: pg.Pool, id: string): Promise<DispatchMessage | undefined> {
  const { rows } = await pool.query({
    name: "dispatch-load-message",
    text: `SELECT m.id, m.account_id, m.to_number, m.sender_id, m.body, m.status, m.segment_count, a.messages_per_second
           FROM messages m JOIN accounts a ON a.id = m.account_id WHERE m.id = $1`,
    values: [id],
  });
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    accountId: row.account_id,
    to: row.to_number,
    senderId: row.sender_id,
    body: row.body,
    status: row.status,
    segmentCount: row.segment_count,
    messagesPerSecond: row.messages_per_second,
  };
}

/** Creates the segment rows on first dispatch and returns all of them (one round trip). */
export async function ensureSegments(pool: pg.Pool, messageId: string, count: number): Promise<SegmentRow[]> {
  const { rows } = await pool.query({
    name: "dispatch-ensure-segments",
    // The outer SELECT cannot see rows the CTE inserts (one snapshot), hence the union.
    text: `WITH inserted AS (
             INSERT INTO message_segments (message_id, seq) SELECT $1, g FROM generate_series(1, $2::int) AS g
             ON CONFLICT DO NOTHING RETURNING seq, status, carrier_id)
           SELECT seq, status, carrier_id FROM inserted
           UNION ALL
           SELECT seq, status, carrier_id FROM message_segments WHERE message_id = $1 AND seq NOT IN (SELECT seq FROM inserted)
           ORDER BY seq`,
    values: [messageId, count],
  });
  return rows.map((row) => ({ seq: row.seq, status: row.status, carrierId: row.carrier_id }));
}

/** Marks a segment as on the wire: after a crash, 'submitting' means "outcome unknown". */
export async function markSubmitting(
  pool: pg.Pool,
  messageId: string,
  seq: number,
  carrierId: string,
): Promise<void> {
  await pool.query({
    name: "dispatch-mark-submitting",
    text: `UPDATE message_segments SET status = 'submitting', attempts = attempts + 1, carrier_id = $3
           WHERE message_id = $1 AND seq = $2 AND status IN ('pending', 'submitting')`,
    values: [messageId, seq, carrierId],
  });
}

/** The submit never left us (no bound session): back to pending. */
export async function markNotSent(pool: pg.Pool, messageId: string, seq: number): Promise<void> {
  await pool.query(
    "UPDATE message_segments SET status = 'pending' WHERE message_id = $1 AND seq = $2 AND status = 'submitting'",
    [messageId, seq],
  );
}

/**
 * Records the carrier's id for a segment and applies any receipt that arrived before
 * this response, under the same advisory lock dlr-ingest takes for that id.
 */
export async function recordSubmitted(
  pool: pg.Pool,
  messageId: string,
  seq: number,
  carrierId: string,
  carrierMessageId: string,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await lockCarrierMessageId(client, carrierId, carrierMessageId);
    await client.query({
      name: "dispatch-record-submitted",
      text: `UPDATE message_segments SET status = 'submitted', carrier_id = $3, carrier_message_id = $4, submitted_at = now()
             WHERE message_id = $1 AND seq = $2 AND status IN ('pending', 'submitting')`,
      values: [messageId, seq, carrierId, carrierMessageId],
    });
    await matchPendingReceipts(client, { carrierId, carrierMessageId });
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

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
