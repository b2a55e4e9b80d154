import type pg from "pg";
import { newId } from "@sms/ids";

/** An active account with `balance` credits. */
export async function insertAccount(pool: pg.Pool, balance = 100): Promise<string> {
  const id = newId("acc");
  await pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'Test', $2, now())", [
    id,
    balance,
  ]);
  return id;
}

export interface MessageFixture {
  accountId: string;
  status?: "scheduled" | "queued";
  credits?: number;
  segments?: number;
  scheduledAt?: Date | null;
  batchId?: string | null;
}

/** A message as acceptance writes it (row, history sequence 1), charged but without moving the balance. */
export async function insertMessage(pool: pg.Pool, fixture: MessageFixture): Promise<string> {
  const id = newId("msg");
  const status = fixture.status ?? "queued";
  await pool.query(
    `WITH m AS (
       INSERT INTO messages (id, account_id, batch_id, to_number, sender_id, body, encoding, segment_count,
                             credits_charged, status, scheduled_at)
       VALUES ($1, $2, $3, '+14155550100', 'ACME', 'secret text', 'GSM7', $4, $5, $6::"MessageStatus", $7)
       RETURNING id, status)
     INSERT INTO message_events (message_id, sequence, status) SELECT id, 1, status FROM m`,
    [
      id,
      fixture.accountId,
      fixture.batchId ?? null,
      fixture.segments ?? 1,
      fixture.credits ?? 1,
      status,
      fixture.scheduledAt ?? (status === "scheduled" ? new Date(Date.now() + 3600_000) : null),
    ],
  );
  return id;
}

/** A segment row as the dispatcher writes it. */
export async function insertSegment(
  pool: pg.Pool,
  messageId: string,
  segment: { seq?: number; status: string; carrierMessageId?: string | null },
): Promise<void> {
  await pool.query(
    `INSERT INTO message_segments (message_id, seq, status, carrier_message_id)
     VALUES ($1, $2, $3::"SegmentStatus", $4)`,
    [messageId, segment.seq ?? 1, segment.status, segment.carrierMessageId ?? null],
  );
}

export async function balanceOf(pool: pg.Pool, accountId: string): Promise<number> {
  const { rows } = await pool.query<{ balance: string }>("SELECT balance FROM accounts WHERE id = $1", [
    accountId,
  ]);
  return Number(rows[0]!.balance);
}

export async function countRows(pool: pg.Pool, table: string, messageId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE message_id = $1`,
    [messageId],
  );
  return rows[0]!.n;
}
