import pg from "pg";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { applyOptOutKeyword, senderNumber } from "./opt-out";
import { addSuppression, getSuppression, listSuppressions, removeSuppression } from "./store";

describe("applyOptOutKeyword and the suppression list (real PostgreSQL)", () => {
  let world: TestWorld;
  let pool: pg.Pool;
  const A = "acc_optout_a";
  const B = "acc_optout_b";

  beforeAll(async () => {
    world = await createTestWorld();
    pool = world.pool(2);
    for (const id of [A, B])
      await pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'test', 0, now())", [
        id,
      ]);
  });
  afterAll(async () => {
    await world.destroy();
  });

  it("STOP adds the sender with the reply number, once; START removes it; other texts do nothing", async () => {
    const message = { accountId: A, from: "+14155550123", to: "+14155550999" };
    expect(await applyOptOutKeyword(pool, { ...message, text: "hello" })).toEqual({
      keyword: null,
      action: "none",
      number: null,
    });
    expect(await applyOptOutKeyword(pool, { ...message, text: " Stop " })).toEqual({
      keyword: "stop",
      action: "added",
      number: "+14155550123",
    });
    expect(await getSuppression(pool, A, "+14155550123")).toMatchObject({
      source: "keyword",
      replyNumber: "+14155550999",
    });
    expect((await applyOptOutKeyword(pool, { ...message, text: "QUIT" })).action).toBe("already_suppressed");
    expect(await getSuppression(pool, B, "+14155550123")).toBeNull();
    expect((await applyOptOutKeyword(pool, { ...message, text: "start" })).action).toBe("removed");
    expect(await getSuppression(pool, A, "+14155550123")).toBeNull();
    expect((await applyOptOutKeyword(pool, { ...message, text: "YES" })).action).toBe("not_suppressed");
  });

  it("takes a sender without its + and ignores one that is not a phone number", async () => {
    expect(senderNumber("447911123456")).toBe("+447911123456");
    expect(senderNumber("+44 7911 123456")).toBe("+447911123456");
    expect(senderNumber("ACME")).toBeNull();
    expect(senderNumber("12")).toBeNull();
    // Ofcom's drama range, which libphonenumber's plan data calls invalid: it texted us, so a
    // STOP from it is kept.
    expect(senderNumber("447700900123")).toBe("+447700900123");
    const outcome = await applyOptOutKeyword(pool, { accountId: A, from: "ACME", to: "+1", text: "STOP" });
    expect(outcome).toEqual({ keyword: "stop", action: "none", number: null });
    const bare = await applyOptOutKeyword(pool, {
      accountId: A,
      from: "447911123456",
      to: "88",
      text: "end",
    });
    expect(bare).toEqual({ keyword: "stop", action: "added", number: "+447911123456" });
    expect(await removeSuppression(pool, A, "+447911123456")).toBe(true);
    expect(await removeSuppression(pool, A, "+447911123456")).toBe(false);
  });

  it("lists newest first with a cursor, per account only", async () => {
    const numbers = ["+14155550201", "+14155550202", "+14155550203"];
    for (const number of numbers) await addSuppression(pool, { accountId: B, number, source: "api" });
    const first = await listSuppressions(pool, B, { limit: 2 });
    expect(first.data.map((s) => s.number)).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await listSuppressions(pool, B, { limit: 2, cursor: first.nextCursor! });
    expect(second.nextCursor).toBeNull();
    expect([...first.data, ...second.data].map((s) => s.number).sort()).toEqual(numbers);
    expect((await listSuppressions(pool, A, { limit: 100 })).data).toEqual([]);
    await expect(listSuppressions(pool, B, { limit: 2, cursor: "nonsense" })).rejects.toThrow(/cursor/);
  });
});
