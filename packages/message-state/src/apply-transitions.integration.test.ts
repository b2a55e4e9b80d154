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

  it("refunds several failed messages of one account once each, with a running balance in the ledger", async () => {
    const accountId = await insertAccount(db.pool, 10);
    const a = await insertMessage(db.pool, { accountId, credits: 2 });
    const b = await insertMessage(db.pool, { accountId, credits: 3 });
    const reached = await insertMessage(db.pool, { accountId, credits: 4 });
    await insertSegment(db.pool, reached, { status: "submitted", carrierMessageId: "c-2" });
    const results = await applyTransitions(
      db.pool,
      [a, b, reached].map((messageId) => ({ messageId, to: "failed" as const, at, errorCode: "X" })),
    );
    expect(results.map((r) => r.applied && r.refundedCredits)).toEqual([2, 3, 0]);
    expect(await balanceOf(db.pool, accountId)).toBe(15);
    const { rows } = await db.pool.query<{ message_id: string; delta: string; balance_after: string }>(
      "SELECT message_id, delta, balance_after FROM credit_ledger WHERE account_id = $1 ORDER BY balance_after",
      [accountId],
    );
    const first = [a, b].sort()[0]!;
    expect(rows.map((r) => [r.message_id, Number(r.delta), Number(r.balance_after)])).toEqual([
      [first, first === a ? 2 : 3, first === a ? 12 : 13],
      [first === a ? b : a, first === a ? 3 : 2, 15],
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
