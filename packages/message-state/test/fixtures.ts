import type pg from "pg";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createTestWorld } from "@sms/testing";
import { applyTransition } from "../src/apply-transition";
import type { MessageStatus } from "../src/transitions";

/** An active account with `balance` credits. */
export async function insertAccount(pool: pg.Pool, balance = 100): Promise<string> {
  const id = newId("acc");
  await pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'Test', $2, now())", [
    id,
    balance,
  ]);
  return id;
}

export interface TransitionWorld {
  db: Database;
  /** An account with a million credits, for the file's messages. */
  accountId: string;
  close(): Promise<void>;
}

/** A test file's world for applyTransition: a database of its own, a pool of 25 and one account. */
export async function openTransitionWorld(): Promise<TransitionWorld> {
  const world = await createTestWorld();
  const db = createDatabase(world.databaseUrl, { poolSize: 25 });
  const accountId = await insertAccount(db.pool, 1_000_000);
  return {
    db,
    accountId,
    async close() {
      await db.close();
      await world.destroy();
    },
  };
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

/** A message brought to `status` through the allowed path, each step applied at `at`. */
export async function insertMessageIn(
  pool: pg.Pool,
  fixture: { accountId: string; status: MessageStatus; credits: number; at: Date },
): Promise<string> {
  const { accountId, status, credits, at } = fixture;
  const start = status === "scheduled" || status === "canceled" ? "scheduled" : "queued";
  const id = await insertMessage(pool, { accountId, status: start, credits });
  const path: Record<MessageStatus, MessageStatus[]> = {
    scheduled: [],
    queued: [],
    sent: ["sent"],
    delivered: ["sent", "delivered"],
    failed: ["failed"],
    canceled: ["canceled"],
  };
  for (const to of path[status]) {
    // As the dispatcher would: the carrier accepted the segment before the message is sent.
    if (to === "sent") await insertSegment(pool, id, { status: "submitted", carrierMessageId: `c-${id}` });
    const result = await applyTransition(pool, { messageId: id, to, at });
    expect(result.applied).toBe(true);
  }
  return id;
}

/** The message row, and how many rows of it the history, outbox, dispatch outbox and ledger hold. */
export async function snapshotMessage(pool: pg.Pool, id: string) {
  const { rows } = await pool.query("SELECT * FROM messages WHERE id = $1", [id]);
  return {
    message: rows[0],
    events: await countRows(pool, "message_events", id),
    outbox: await countRows(pool, "events", id),
    dispatch: await countRows(pool, "dispatch_outbox", id),
    ledger: await countRows(pool, "credit_ledger", id),
  };
}
