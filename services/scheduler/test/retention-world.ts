import crypto from "node:crypto";
import { createDatabase, type Database } from "@sms/db";
import { encodeUlid, newId } from "@sms/ids";
import { createTestWorld, type TestWorld } from "@sms/testing";
import type { RetentionPolicy } from "../src/retention/pass";

export const DAY = 86_400_000;

/** The defaults of docs/operations.md#retention. */
export const POLICY: RetentionPolicy = {
  messages: 90,
  webhooks: 30,
  outbox: 7,
  receipts: 30,
  signIns: 30,
  otps: 30,
  ledger: 400,
};

/** A test database with one account, and rows made as old as a retention test wants them. */
export interface RetentionWorld {
  world: TestWorld;
  db: Database;
  accountId: string;
  now: Date;
  ago(days: number): Date;
  /** An id of that prefix made at `time`. */
  idAt(prefix: string, time: Date): string;
  /** The first column of a query's rows, as sorted strings. */
  ids(sql: string): Promise<string[]>;
  /**
   * A message due `daysOld` days ago (its id of that time) in `status`; with its history (two
   * rows), a segment and a verified OTP when `withChildren`.
   */
  message(daysOld: number, status: string, withChildren?: boolean): Promise<string>;
  destroy(): Promise<void>;
}

export async function createRetentionWorld(): Promise<RetentionWorld> {
  const world = await createTestWorld();
  const db = createDatabase(world.databaseUrl, { poolSize: 4 });
  const accountId = newId("acc");
  await db.pool.query("INSERT INTO accounts (id, name, updated_at) VALUES ($1, 'Test', now())", [accountId]);
  const now = new Date();
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const idAt = (prefix: string, time: Date) =>
    `${prefix}_${encodeUlid(time.getTime(), crypto.randomBytes(10))}`;
  return {
    world,
    db,
    accountId,
    now,
    ago,
    idAt,
    ids: async (sql) => (await db.pool.query<{ id: string }>(sql)).rows.map((row) => String(row.id)).sort(),
    async message(daysOld, status, withChildren = false) {
      const createdAt = ago(daysOld);
      const id = idAt("msg", createdAt);
      await db.pool.query(
        `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                               status, created_at, updated_at)
         VALUES ($1, $2, '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, $3, $4, $4)`,
        [id, accountId, status, createdAt],
      );
      if (withChildren) {
        await db.pool.query(
          `INSERT INTO message_events (message_id, sequence, status, occurred_at) VALUES ($1, 1, 'queued', $2), ($1, 2, $3, $2)`,
          [id, createdAt, status],
        );
        await db.pool.query(
          "INSERT INTO message_segments (message_id, seq, status) VALUES ($1, 1, 'delivered')",
          [id],
        );
        await db.pool.query(
          `INSERT INTO otps (id, account_id, phone, code_hmac, length, max_attempts, message_id, status, expires_at, created_at)
           VALUES ($1, $2, '+14155550100', '\\x00', 6, 3, $3, 'verified', $4, $4)`,
          [idAt("otp", createdAt), accountId, id, createdAt],
        );
      }
      return id;
    },
    async destroy() {
      await db.close();
      await world.destroy();
    },
  };
}
