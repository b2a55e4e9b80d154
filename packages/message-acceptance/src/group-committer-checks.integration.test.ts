import { GroupCommitter } from "./group-committer";
import { OPTIONS, committerWorld } from "./fixtures/committer-world";
import { prepareMessage, type PreparedMessage } from "./prepare";

// What the flush's own statement checks besides the credits: the account's opt-outs for an item
// marked optOutField (docs/decisions.md#opt-out) and the day's quota (docs/decisions.md#daily-quota).
describe("GroupCommitter's opt-out and quota checks (real PostgreSQL)", () => {
  const w = committerWorld();
  const { account, message, ledgerOf, balanceOf, countedOf, recordStatements } = w;

  describe("an item checked against its account's suppression list in the flush (optOutField)", () => {
    const optedOutNumber = "+14155550177";

    async function suppress(accountId: string, number = optedOutNumber) {
      await w.pool.query("INSERT INTO suppressions (account_id, number, source) VALUES ($1, $2, 'api')", [
        accountId,
        number,
      ]);
    }

    function to(accountId: string, number: string): PreparedMessage {
      return prepareMessage(
        { id: accountId, senderIds: new Set(["ACME"]) },
        { to: number, message: "hello", senderId: "ACME" },
        { source: "api", batchId: null, now: new Date() },
        OPTIONS,
      );
    }

    const storedOf = async (ids: string[]) =>
      (await w.pool.query<{ id: string }>("SELECT id FROM messages WHERE id = ANY($1::text[])", [ids])).rows
        .map((row) => row.id)
        .sort();

    it("refuses the suppressed one in the covered statement, writing and charging it nowhere, and keeps the rest", async () => {
      const committer = new GroupCommitter(w.pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
      const [a, b] = [await account(10), await account(10)];
      await suppress(a);
      // b has the same number unsuppressed: a list is one account's, never global.
      const items = [
        to(a, "+14155550100"),
        to(a, optedOutNumber),
        to(b, optedOutNumber),
        to(a, optedOutNumber),
      ];
      const recorded = recordStatements();
      let outcomes: PromiseSettledResult<void>[];
      try {
        outcomes = await Promise.allSettled(
          items.map((m, i) =>
            committer.commit({
              accountId: m.accountId,
              messages: [m],
              optOutField: i === 3 ? "phone" : "to",
            }),
          ),
        );
      } finally {
        recorded.stop();
      }
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected"]);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
        code: "RECIPIENT_OPTED_OUT",
        field: "to",
      });
      expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({ field: "phone" });
      // One statement for the four: no lookup of its own before the flush.
      expect(recorded.names()).toEqual(["acceptance-write-if-covered"]);
      expect(await storedOf(items.map((m) => m.id))).toEqual([items[0]!.id, items[2]!.id].sort());
      expect([await balanceOf(a), await balanceOf(b)]).toEqual([9, 9]);
      expect(await ledgerOf(a)).toEqual([{ delta: -1, after: 9, id: items[0]!.id, count: 1 }]);
      expect(await countedOf(a)).toEqual({ queued: 1 });
    });

    it("refuses an account's only item when suppressed, leaving its balance and ledger untouched", async () => {
      const committer = new GroupCommitter(w.pool, { lingerMs: 0 });
      const a = await account(5);
      await suppress(a);
      const m = to(a, optedOutNumber);
      await expect(
        committer.commit({ accountId: a, messages: [m], optOutField: "to" }),
      ).rejects.toMatchObject({
        code: "RECIPIENT_OPTED_OUT",
      });
      expect(await storedOf([m.id])).toEqual([]);
      expect(await balanceOf(a)).toBe(5);
      expect(await ledgerOf(a)).toEqual([]);
    });

    it("refuses it as opted out, not short of credits, when the balance does not cover the flush", async () => {
      const committer = new GroupCommitter(w.pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
      const a = await account(1);
      await suppress(a);
      const items = [to(a, optedOutNumber), to(a, "+14155550100"), to(a, "+14155550101")];
      const outcomes = await Promise.allSettled(
        items.map((m) => committer.commit({ accountId: a, messages: [m], optOutField: "to" })),
      );
      // Decided one by one in a transaction: the opted-out one first, then the credits in order.
      expect(
        outcomes.map((o) => (o.status === "rejected" ? (o.reason as { code: string }).code : "ok")),
      ).toEqual(["RECIPIENT_OPTED_OUT", "ok", "INSUFFICIENT_CREDITS"]);
      expect(await storedOf(items.map((m) => m.id))).toEqual([items[1]!.id]);
      expect(await balanceOf(a)).toBe(0);
    });

    it("does not check an item without it, and refuses the field on an item of several messages", async () => {
      const committer = new GroupCommitter(w.pool, { lingerMs: 0 });
      const a = await account(5);
      await suppress(a);
      const m = to(a, optedOutNumber);
      // A batch's items were looked up before its commit (one lookup for the batch).
      await committer.commit({ accountId: a, messages: [m] });
      expect(await storedOf([m.id])).toEqual([m.id]);
      await expect(
        committer.commit({
          accountId: a,
          messages: [to(a, "+14155550100"), to(a, "+14155550101")],
          optOutField: "to",
        }),
      ).rejects.toThrow(TypeError);
    });
  });

  describe("the day's quota, counted in the account's row by the statement that stores the messages", () => {
    async function quotaOf(accountId: string) {
      const { rows } = await w.pool.query<{ today: boolean; used: number }>(
        "SELECT quota_day = (now() AT TIME ZONE 'UTC')::date AS today, quota_used AS used FROM accounts WHERE id = $1",
        [accountId],
      );
      return rows[0]!;
    }

    async function quotaAccount(dailyQuota: number, usedToday = 0, day = "(now() AT TIME ZONE 'UTC')::date") {
      const id = await account(100);
      await w.pool.query(
        `UPDATE accounts SET daily_quota = $2, quota_used = $3, quota_day = ${day} WHERE id = $1`,
        [id, dailyQuota, usedToday],
      );
      return id;
    }

    it("counts a covered flush's messages in the same statement", async () => {
      const committer = new GroupCommitter(w.pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
      const a = await quotaAccount(5, 1);
      const recorded = recordStatements();
      try {
        await Promise.all([
          committer.commit({ accountId: a, messages: [message(a)] }),
          committer.commit({ accountId: a, messages: [message(a), message(a)] }),
        ]);
      } finally {
        recorded.stop();
      }
      expect(recorded.names()).toEqual(["acceptance-write-if-covered"]);
      expect(await quotaOf(a)).toEqual({ today: true, used: 4 });
      expect(await balanceOf(a)).toBe(97);
    });

    it("refuses whole the items that do not fit, in order, counting and charging nothing of them", async () => {
      const committer = new GroupCommitter(w.pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
      const a = await quotaAccount(4, 2);
      const items = [[message(a)], [message(a), message(a)], [message(a)]];
      const outcomes = await Promise.allSettled(
        items.map((messages) => committer.commit({ accountId: a, messages })),
      );
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      const refusal = (outcomes[1] as PromiseRejectedResult).reason as {
        code: string;
        options: { retryAfterSeconds: number };
      };
      expect(refusal.code).toBe("QUOTA_EXCEEDED");
      expect(refusal.options.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(refusal.options.retryAfterSeconds).toBeLessThanOrEqual(86_400);
      expect(await quotaOf(a)).toEqual({ today: true, used: 4 });
      expect(await balanceOf(a)).toBe(98);
      await expect(committer.commit({ accountId: a, messages: [message(a)] })).rejects.toMatchObject({
        code: "QUOTA_EXCEEDED",
      });
    });

    it("starts each UTC day at none: a count of another day is not today's", async () => {
      const committer = new GroupCommitter(w.pool, { lingerMs: 0 });
      const a = await quotaAccount(2, 2, "(now() AT TIME ZONE 'UTC')::date - 1");
      await committer.commit({ accountId: a, messages: [message(a), message(a)] });
      expect(await quotaOf(a)).toEqual({ today: true, used: 2 });
    });

    it("does not count a send refused as opted out", async () => {
      const committer = new GroupCommitter(w.pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
      const a = await quotaAccount(1);
      await w.pool.query(
        "INSERT INTO suppressions (account_id, number, source) VALUES ($1, '+14155550100', 'api')",
        [a],
      );
      const [optedOut, kept] = [message(a), message(a)];
      kept.to = "+14155550101";
      const outcomes = await Promise.allSettled([
        committer.commit({ accountId: a, messages: [optedOut], optOutField: "to" }),
        committer.commit({ accountId: a, messages: [kept], optOutField: "to" }),
      ]);
      expect(
        outcomes.map((o) => (o.status === "rejected" ? (o.reason as { code: string }).code : "ok")),
      ).toEqual(["RECIPIENT_OPTED_OUT", "ok"]);
      expect(await quotaOf(a)).toEqual({ today: true, used: 1 });
    });
  });
});
