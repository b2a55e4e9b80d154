import crypto from "node:crypto";
import pg from "pg";
import { newId } from "@sms/ids";
import { createTestWorld } from "@sms/testing";

/** Fixture rows for receipt tests (here and in dlr-ingest): what acceptance and the dispatcher would have written. */

/** A pool, or one connection checked out of it. */
export type Db = pg.Pool | pg.PoolClient;

export async function insertAccount(pool: Db, balance = 100): Promise<string> {
  const id = `acc_${crypto.randomBytes(6).toString("hex")}`;
  await pool.query(
    "INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'Receipts test', $2, now())",
    [id, balance],
  );
  return id;
}

export interface ReceiptsWorld {
  pool: pg.Pool;
  /** An account with the default balance, for the file's messages. */
  accountId: string;
  close(): Promise<void>;
}

/** A test file's world: a database of its own, a pool of 20 connections and one account. */
export async function openReceiptsWorld(): Promise<ReceiptsWorld> {
  const world = await createTestWorld();
  const pool = world.pool(20);
  const accountId = await insertAccount(pool);
  return {
    pool,
    accountId,
    async close() {
      await world.destroy();
    },
  };
}

export interface MessageFixture {
  accountId: string;
  segments?: number;
  status?: "queued" | "sent";
  to?: string;
}

/** A message that went through acceptance (and, when `sent`, the dispatcher): status row and history. */
export async function insertMessage(pool: Db, fixture: MessageFixture): Promise<string> {
  const id = newId("msg");
  const segments = fixture.segments ?? 1;
  const status = fixture.status ?? "sent";
  const sequence = status === "sent" ? 2 : 1;
  await pool.query(
    `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                           status, status_sequence, sent_at)
     VALUES ($1, $2, $3, 'Acme', 'hello', 'GSM7', $4, $4, $5::"MessageStatus", $6, CASE WHEN $5::"MessageStatus" = 'sent' THEN now() END)`,
    [id, fixture.accountId, fixture.to ?? "+447700900123", segments, status, sequence],
  );
  await pool.query(
    `INSERT INTO message_events (message_id, sequence, status, previous_status)
     SELECT $1, s, (ARRAY['queued', 'sent'])[s]::"MessageStatus", (ARRAY[NULL, 'queued'])[s]::"MessageStatus"
     FROM generate_series(1, $2::int) AS s`,
    [id, sequence],
  );
  return id;
}

/** A segment row as the dispatcher leaves it: submitted with the carrier's id, or submitting without one yet. */
export async function insertSegment(
  pool: Db,
  segment: { messageId: string; seq: number; carrierId: string; carrierMessageId?: string },
): Promise<void> {
  await pool.query(
    `INSERT INTO message_segments (message_id, seq, status, attempts, carrier_id, carrier_message_id, submitted_at)
     VALUES ($1, $2, $3::"SegmentStatus", 1, $4, $5, CASE WHEN $5::text IS NOT NULL THEN now() END)`,
    [
      segment.messageId,
      segment.seq,
      segment.carrierMessageId ? "submitted" : "submitting",
      segment.carrierId,
      segment.carrierMessageId ?? null,
    ],
  );
}

let carrierSeq = 0;
/** A carrier id no other test in this test file uses (each test file has a database of its own). */
export function nextCarrierId(): string {
  return `car_${++carrierSeq}`;
}

/** A sent message whose segments carry the carrier ids `carrierMessageIds` (one segment per id). */
export async function insertSentMessage(
  pool: Db,
  message: { accountId: string; carrierId: string; carrierMessageIds: string[] },
): Promise<string> {
  const messageId = await insertMessage(pool, {
    accountId: message.accountId,
    segments: message.carrierMessageIds.length,
  });
  for (const [i, id] of message.carrierMessageIds.entries())
    await insertSegment(pool, { messageId, seq: i + 1, carrierId: message.carrierId, carrierMessageId: id });
  return messageId;
}

export async function insertCarrier(
  pool: Db,
  carrier: {
    id?: string;
    host?: string;
    port: number;
    systemId: string;
    password: string;
    receiverBinds?: number;
    enabled?: boolean;
    receiptIdForm?: "as_is" | "hex" | "decimal";
  },
): Promise<string> {
  const id = carrier.id ?? `car_${crypto.randomBytes(4).toString("hex")}`;
  await pool.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, receiver_binds, enabled, receipt_id_form)
     VALUES ($1, $1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      id,
      carrier.host ?? "127.0.0.1",
      carrier.port,
      carrier.systemId,
      carrier.password,
      carrier.receiverBinds ?? 1,
      carrier.enabled ?? true,
      carrier.receiptIdForm ?? "as_is",
    ],
  );
  return id;
}

export interface MessageSnapshot {
  status: string;
  sequence: number;
  errorCode: string | null;
  errorMessage: string | null;
  deliveredAt: Date | null;
  /** History statuses in sequence order. */
  history: string[];
  /** Outbox event types in sequence order. */
  outbox: string[];
  segments: Array<{ seq: number; status: string; errorCode: string | null; doneAt: Date | null }>;
}

/** The message, its history, its outbox events and its segments. */
export async function readMessage(pool: Db, id: string): Promise<MessageSnapshot> {
  const message = await pool.query(
    "SELECT status, status_sequence, error_code, error_message, delivered_at FROM messages WHERE id = $1",
    [id],
  );
  const history = await pool.query(
    "SELECT status FROM message_events WHERE message_id = $1 ORDER BY sequence",
    [id],
  );
  const outbox = await pool.query("SELECT type FROM events WHERE message_id = $1 ORDER BY sequence", [id]);
  const segments = await pool.query(
    "SELECT seq, status, error_code, done_at FROM message_segments WHERE message_id = $1 ORDER BY seq",
    [id],
  );
  const row = message.rows[0];
  return {
    status: row.status,
    sequence: row.status_sequence,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    deliveredAt: row.delivered_at,
    history: history.rows.map((r) => r.status),
    outbox: outbox.rows.map((r) => r.type),
    segments: segments.rows.map((r) => ({
      seq: r.seq,
      status: r.status,
      errorCode: r.error_code,
      doneAt: r.done_at,
    })),
  };
}

/** carrier_receipts rows of one carrier id, oldest first. */
export async function readReceipts(
  pool: Db,
  carrierId: string,
): Promise<
  Array<{
    carrierMessageId: string;
    state: string;
    outcome: string;
    messageId: string | null;
    seq: number | null;
  }>
> {
  const { rows } = await pool.query(
    "SELECT carrier_message_id, state, outcome, message_id, seq FROM carrier_receipts WHERE carrier_id = $1 ORDER BY id",
    [carrierId],
  );
  return rows.map((r) => ({
    carrierMessageId: r.carrier_message_id,
    state: r.state,
    outcome: r.outcome,
    messageId: r.message_id,
    seq: r.seq,
  }));
}
