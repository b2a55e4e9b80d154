import type { Database } from "@sms/db";
import { waitFor } from "@sms/testing";
import {
  balanceOf,
  countRows,
  insertMessageIn,
  insertSegment,
  openTransitionWorld,
  snapshotMessage,
} from "../test/fixtures";
import { applyTransition } from "./apply-transition";
import type { MessageStatus } from "./transitions";

describe("applyTransition (real PostgreSQL)", () => {
  let db: Database;
  let accountId: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, accountId, close } = await openTransitionWorld());
  });
  afterAll(() => close());

  const at = new Date("2026-11-21T10:00:00.123Z");

  const messageIn = (status: MessageStatus, credits = 1) =>
    insertMessageIn(db.pool, { accountId, status, credits, at });
  const snapshot = (id: string) => snapshotMessage(db.pool, id);

  /**
   * Runs `attempts` at once for real: a transaction holds the message row until every
   * attempt is waiting on a lock, so they all start from the same committed state.
   */
  async function race<T>(messageId: string, attempts: Array<() => Promise<T>>): Promise<T[]> {
    const blocker = await db.pool.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM messages WHERE id = $1 FOR UPDATE", [messageId]);
      const running = Promise.all(attempts.map((attempt) => attempt()));
      await waitFor(
        async () => {
          const { rows } = await db.pool.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          return rows[0]!.n >= attempts.length;
        },
        { what: "every attempt to wait on the row lock" },
      );
      await blocker.query("COMMIT");
      return await running;
    } finally {
      blocker.release();
    }
  }

  describe("credits", () => {
    it("returns the credits of a message that fails before any segment reached a carrier", async () => {
      const id = await messageIn("queued", 3);
      const before = await balanceOf(db.pool, accountId);
      const result = await applyTransition(db.pool, {
        messageId: id,
        to: "failed",
        at,
        errorCode: "NO_ROUTE",
      });
      expect(result).toMatchObject({ applied: true, refundedCredits: 3 });
      expect(await balanceOf(db.pool, accountId)).toBe(before + 3);
      const { rows } = await db.pool.query(
        "SELECT delta, balance_after, reason FROM credit_ledger WHERE message_id = $1",
        [id],
      );
      expect(rows).toEqual([{ delta: "3", balance_after: String(before + 3), reason: "message_refund" }]);
    });

    it("returns the credits when every segment was refused by the carrier (no carrier id)", async () => {
      const id = await messageIn("queued", 2);
      await insertSegment(db.pool, id, { seq: 1, status: "failed" });
      await insertSegment(db.pool, id, { seq: 2, status: "pending" });
      expect(await applyTransition(db.pool, { messageId: id, to: "failed", at })).toMatchObject({
        applied: true,
        refundedCredits: 2,
      });
    });

    it.each([
      ["a segment the carrier accepted", { status: "submitted", carrierMessageId: "c-1" }],
      ["a segment that failed after the carrier accepted it", { status: "failed", carrierMessageId: "c-2" }],
      ["a segment whose submit outcome is unknown", { status: "submitting" }],
    ])("keeps the credits of a message with %s", async (_name, segment) => {
      const id = await messageIn("queued", 2);
      await insertSegment(db.pool, id, { seq: 1, status: "pending" });
      await insertSegment(db.pool, id, { seq: 2, ...segment });
      const before = await balanceOf(db.pool, accountId);
      expect(await applyTransition(db.pool, { messageId: id, to: "failed", at })).toMatchObject({
        applied: true,
        refundedCredits: 0,
      });
      expect(await balanceOf(db.pool, accountId)).toBe(before);
      expect(await countRows(db.pool, "credit_ledger", id)).toBe(0);
    });

    it("keeps the credits of a sent message that fails on its receipt", async () => {
      const id = await messageIn("sent", 1);
      expect(await applyTransition(db.pool, { messageId: id, to: "failed", at })).toMatchObject({
        refundedCredits: 0,
      });
    });

    it("returns the credits of a canceled scheduled message", async () => {
      const id = await messageIn("scheduled", 4);
      const before = await balanceOf(db.pool, accountId);
      expect(await applyTransition(db.pool, { messageId: id, to: "canceled", at })).toMatchObject({
        applied: true,
        refundedCredits: 4,
      });
      expect(await balanceOf(db.pool, accountId)).toBe(before + 4);
    });

    it("refunds once when 20 callers fail the same message at the same time", async () => {
      const id = await messageIn("queued", 5);
      const before = await balanceOf(db.pool, accountId);
      const results = await race(
        id,
        Array.from(
          { length: 20 },
          (_, i) => () => applyTransition(db.pool, { messageId: id, to: "failed", at, errorCode: `E${i}` }),
        ),
      );
      expect(results.filter((r) => r.applied)).toHaveLength(1);
      expect(results.filter((r) => !r.applied)).toEqual(
        Array.from({ length: 19 }, () => ({ applied: false, currentStatus: "failed" })),
      );
      expect(await balanceOf(db.pool, accountId)).toBe(before + 5);
      expect(await countRows(db.pool, "credit_ledger", id)).toBe(1);
      const { rows } = await db.pool.query(
        "SELECT count(*)::int AS n FROM message_events WHERE message_id = $1 AND status = 'failed'",
        [id],
      );
      expect(rows[0].n).toBe(1);
      expect(await countRows(db.pool, "events", id)).toBe(1);
    });

    it("refunds once when 20 callers race to fail and to deliver the same message", async () => {
      const id = await messageIn("sent", 1);
      const before = await balanceOf(db.pool, accountId);
      const results = await race(
        id,
        Array.from(
          { length: 20 },
          (_, i) => () => applyTransition(db.pool, { messageId: id, to: i % 2 ? "failed" : "delivered", at }),
        ),
      );
      expect(results.filter((r) => r.applied)).toHaveLength(1);
      const { rows } = await db.pool.query("SELECT status, status_sequence FROM messages WHERE id = $1", [
        id,
      ]);
      expect(rows[0].status_sequence).toBe(3);
      // A sent message reached a carrier, so failing it returns nothing either way.
      expect(await balanceOf(db.pool, accountId)).toBe(before);
      expect(await countRows(db.pool, "message_events", id)).toBe(3);
    });
  });

  describe("inside the caller's transaction", () => {
    it("commits and rolls back with the caller", async () => {
      const id = await messageIn("queued", 2);
      const before = await snapshot(id);
      const balance = await balanceOf(db.pool, accountId);
      const client = await db.pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("UPDATE message_segments SET status = 'failed' WHERE message_id = $1", [id]);
        expect(await applyTransition(client, { messageId: id, to: "failed", at })).toMatchObject({
          applied: true,
          refundedCredits: 2,
        });
        await client.query("ROLLBACK");
      } finally {
        client.release();
      }
      expect(await snapshot(id)).toEqual(before);
      expect(await balanceOf(db.pool, accountId)).toBe(balance);
    });

    it("sees the caller's own earlier writes: a carrier id recorded in the same transaction blocks the refund", async () => {
      const id = await messageIn("queued", 2);
      const client = await db.pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(
          "INSERT INTO message_segments (message_id, seq, status, carrier_message_id) VALUES ($1, 1, 'submitted', 'c-9')",
          [id],
        );
        expect(await applyTransition(client, { messageId: id, to: "failed", at })).toMatchObject({
          refundedCredits: 0,
        });
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      expect(await countRows(db.pool, "credit_ledger", id)).toBe(0);
    });
  });
});
