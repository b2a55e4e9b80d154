import { createDatabase, type Database } from "@sms/db";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { balanceOf, countRows, insertAccount, insertMessage, insertSegment } from "../test/fixtures";
import { applyTransition, applyTransitions } from "./apply-transition";

describe("applyTransitions (many messages in one statement, real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 5 });
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  const at = new Date("2026-11-21T10:00:00.123Z");

  it("applies each allowed change, refuses each other one, and answers in input order", async () => {
    const accountId = await insertAccount(db.pool, 100);
    const queued = await insertMessage(db.pool, { accountId });
    const sent = await insertMessage(db.pool, { accountId });
    await insertSegment(db.pool, sent, { status: "submitted", carrierMessageId: "c-1" });
    expect((await applyTransition(db.pool, { messageId: sent, to: "sent", at })).applied).toBe(true);
    const scheduled = await insertMessage(db.pool, { accountId, status: "scheduled" });

    const results = await applyTransitions(db.pool, [
      { messageId: sent, to: "delivered", at },
      { messageId: "msg_nobody", to: "delivered", at },
      { messageId: scheduled, to: "sent", at },
      { messageId: queued, to: "sent", at },
    ]);
    expect(results).toEqual([
      { applied: true, sequence: 3, previousStatus: "sent", refundedCredits: 0 },
      { applied: false, currentStatus: null },
      { applied: false, currentStatus: "scheduled" },
      { applied: true, sequence: 2, previousStatus: "queued", refundedCredits: 0 },
    ]);
    for (const [id, events] of [
      [sent, 3],
      [scheduled, 1],
      [queued, 2],
    ] as const)
      expect(await countRows(db.pool, "message_events", id)).toBe(events);
    expect(await countRows(db.pool, "outbox_events", scheduled)).toBe(0);
  });

  it("refunds several messages of one account once each: one ledger entry per reason, running balance", async () => {
    const accountId = await insertAccount(db.pool, 10);
    const a = await insertMessage(db.pool, { accountId, credits: 2 });
    const b = await insertMessage(db.pool, { accountId, credits: 3 });
    const reached = await insertMessage(db.pool, { accountId, credits: 4 });
    await insertSegment(db.pool, reached, { status: "submitted", carrierMessageId: "c-2" });
    const scheduled = await insertMessage(db.pool, { accountId, credits: 1, status: "scheduled" });
    const results = await applyTransitions(db.pool, [
      ...[a, b, reached].map((messageId) => ({ messageId, to: "failed" as const, at, errorCode: "X" })),
      { messageId: scheduled, to: "canceled" as const, at },
    ]);
    expect(results.map((r) => r.applied && r.refundedCredits)).toEqual([2, 3, 0, 1]);
    expect(await balanceOf(db.pool, accountId)).toBe(16);
    const { rows } = await db.pool.query(
      `SELECT message_id, message_count, delta::int, balance_after::int, note FROM credit_ledger
        WHERE account_id = $1 AND reason = 'message_refund' ORDER BY id`,
      [accountId],
    );
    expect(rows).toEqual([
      {
        message_id: null,
        message_count: 2,
        delta: 5,
        balance_after: 15,
        note: "message failed before reaching a carrier",
      },
      {
        message_id: scheduled,
        message_count: 1,
        delta: 1,
        balance_after: 16,
        note: "scheduled message canceled",
      },
    ]);
  });

  it("refuses two changes of one message in one call", async () => {
    const accountId = await insertAccount(db.pool);
    const id = await insertMessage(db.pool, { accountId });
    await expect(
      applyTransitions(db.pool, [
        { messageId: id, to: "sent", at },
        { messageId: id, to: "delivered", at },
      ]),
    ).rejects.toThrow(/at most one change per message/);
    expect(await countRows(db.pool, "message_events", id)).toBe(1);
  });

  it("does nothing for an empty batch", async () => {
    expect(await applyTransitions(db.pool, [])).toEqual([]);
  });
});
