import pg from "pg";
import { newId } from "@sms/ids";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { GroupCommitter } from "./group-committer";
import { prepareMessage, type PreparedMessage } from "./prepare";

const OPTIONS = { maxSegments: 10, creditsPerSegment: 1 };

describe("GroupCommitter (real PostgreSQL)", () => {
  let world: TestWorld;
  let pool: pg.Pool;

  beforeAll(async () => {
    world = await createTestWorld();
    pool = new pg.Pool({ connectionString: world.databaseUrl, max: 6 });
    // An idle connection cut by the database's drop at teardown is no failure of this test
    // (@sms/db's pool ignores it the same way); without a listener it would throw.
    pool.on("error", () => undefined);
  });
  afterAll(async () => {
    await pool.end();
    await world.destroy();
  });

  async function account(balance: number, status: "active" | "suspended" = "active"): Promise<string> {
    const id = newId("acc");
    await pool.query(
      "INSERT INTO accounts (id, name, balance, status, updated_at) VALUES ($1, 'test', $2, $3, now())",
      [id, balance, status],
    );
    return id;
  }

  function message(
    accountId: string,
    text = "hello",
    priority?: "high" | "normal" | "bulk",
  ): PreparedMessage {
    return prepareMessage(
      { id: accountId, senderIds: new Set(["ACME"]) },
      { to: "+14155550100", message: text, senderId: "ACME", priority },
      { source: "api", batchId: null, now: new Date() },
      OPTIONS,
    );
  }

  async function ledgerOf(accountId: string) {
    const { rows } = await pool.query<{
      delta: string;
      balance_after: string;
      message_id: string | null;
      message_count: number;
    }>(
      "SELECT delta, balance_after, message_id, message_count FROM credit_ledger WHERE account_id = $1 ORDER BY id",
      [accountId],
    );
    return rows.map((r) => ({
      delta: Number(r.delta),
      after: Number(r.balance_after),
      id: r.message_id,
      count: r.message_count,
    }));
  }

  const balanceOf = async (accountId: string) =>
    Number((await pool.query("SELECT balance FROM accounts WHERE id = $1", [accountId])).rows[0].balance);

  /** The account's message count deltas by status (docs/decisions.md#message-counts), as acceptance appended them. */
  async function countedOf(accountId: string): Promise<Record<string, number>> {
    const { rows } = await pool.query<{ status: string; n: number }>(
      "SELECT status::text, sum(delta)::int AS n FROM message_count_deltas WHERE account_id = $1 GROUP BY 1",
      [accountId],
    );
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }

  /** Every statement any connection of the pool sends, by name (or text) until spy.mockRestore(). */
  function recordStatements() {
    const statements: string[] = [];
    const clientQuery = pg.Client.prototype.query;
    const spy = jest.spyOn(pg.Client.prototype, "query").mockImplementation(function (
      this: pg.Client,
      ...args: never[]
    ) {
      const config = args[0] as unknown as string | { name?: string; text?: string };
      statements.push(typeof config === "string" ? config : (config.name ?? config.text ?? "?"));
      return (clientQuery as (...a: never[]) => unknown).apply(this, args);
    } as never);
    return { statements, spy };
  }

  it("charges a covered flush in one statement: running balances, history, outbox and SMPP records", async () => {
    // No linger: the first flush starts at once (the linger has a test of its own).
    const committer = new GroupCommitter(pool, { maxConcurrentFlushes: 1, lingerMs: 0 });
    const [a, b] = [await account(100), await account(50)];
    const items = [
      { accountId: a, messages: [message(a), message(a, "x".repeat(200))] }, // 1 + 2 segments
      { accountId: b, messages: [message(b)] },
      { accountId: a, messages: [message(a)] },
    ];
    const { statements, spy } = recordStatements();
    try {
      // The first flush starts at once; the rest arrive while it runs and share the second one.
      const first = committer.commit({ accountId: b, messages: [message(b)] });
      const rest = items.map((item, i) =>
        committer.commit(
          i === 1
            ? {
                ...item,
                smppSubmit: {
                  messageId: item.messages[0]!.id,
                  registeredDelivery: 1,
                  sourceAddr: "ACME",
                  destinationAddr: "14155550100",
                },
              }
            : item,
        ),
      );
      await Promise.all([first, ...rest]);
    } finally {
      spy.mockRestore();
    }
    // No BEGIN, no separate lock, no COMMIT: one autocommit statement per flush.
    expect(statements).toEqual(["acceptance-write-if-covered", "acceptance-write-if-covered"]);

    expect(await balanceOf(a)).toBe(96);
    expect(await balanceOf(b)).toBe(48);
    // One charge per account and statement; the message is named when the charge is for one.
    expect(await ledgerOf(a)).toEqual([{ delta: -4, after: 96, id: null, count: 3 }]);
    expect(await ledgerOf(b)).toEqual([
      { delta: -1, after: 49, id: expect.stringMatching(/^msg_/), count: 1 },
      { delta: -1, after: 48, id: items[1]!.messages[0]!.id, count: 1 },
    ]);
    const counts = await pool.query(
      `SELECT (SELECT count(*) FROM messages WHERE account_id = ANY($1)) AS messages,
              (SELECT count(*) FROM message_events e JOIN messages m ON m.id = e.message_id
                WHERE m.account_id = ANY($1)) AS events,
              (SELECT count(*) FROM events WHERE account_id = ANY($1)) AS outbox,
              (SELECT count(*) FROM dispatch_outbox d JOIN messages m ON m.id = d.message_id
                WHERE m.account_id = ANY($1)) AS dispatch`,
      [[a, b]],
    );
    expect(counts.rows[0]).toEqual({ messages: "5", events: "5", outbox: "5", dispatch: "5" });
    expect(await countedOf(a)).toEqual({ queued: 3 });
    expect(await countedOf(b)).toEqual({ queued: 2 });
    const submits = await pool.query(
      "SELECT id, account_id, message_id, registered_delivery FROM smpp_submits",
    );
    const smppMessage = items[1]!.messages[0]!.id;
    expect(submits.rows).toEqual([
      { id: smppMessage, account_id: b, message_id: smppMessage, registered_delivery: 1 },
    ]);
  });

  it("waits its linger when idle, so the acceptances arriving meanwhile share one statement", async () => {
    const committer = new GroupCommitter(pool, { lingerMs: 60 });
    const a = await account(100);
    const { statements, spy } = recordStatements();
    try {
      const started = Date.now();
      const first = committer.commit({ accountId: a, messages: [message(a)] });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = committer.commit({ accountId: a, messages: [message(a)] });
      await Promise.all([first, second]);
      // setTimeout may fire a millisecond before Date.now() says the time is up.
      expect(Date.now() - started).toBeGreaterThanOrEqual(58);
    } finally {
      spy.mockRestore();
    }
    expect(statements).toEqual(["acceptance-write-if-covered"]);
    expect(await ledgerOf(a)).toEqual([{ delta: -2, after: 98, id: null, count: 2 }]);
  });

  it("queues a message.queued event marked by its class: high ahead of the backlog, bulk behind the rest", async () => {
    const committer = new GroupCommitter(pool);
    const id = await account(10);
    const [high, normal, bulk] = [
      message(id, "code 123456", "high"),
      message(id, "hello", "normal"),
      message(id, "sale", "bulk"),
    ];
    await committer.commit({ accountId: id, messages: [high, normal, bulk] });
    const { rows } = await pool.query<{ message_id: string; high: boolean; bulk: boolean }>(
      "SELECT message_id, high, bulk FROM outbox_pending WHERE message_id = ANY($1)",
      [[high.id, normal.id, bulk.id]],
    );
    expect(Object.fromEntries(rows.map((row) => [row.message_id, [row.high, row.bulk]]))).toEqual({
      [high.id]: [true, false],
      [normal.id]: [false, false],
      [bulk.id]: [false, true],
    });
  });

  it("decides an account's items one by one when its balance does not cover them all", async () => {
    const committer = new GroupCommitter(pool, { maxConcurrentFlushes: 1 });
    const poor = await account(3);
    const rich = await account(10);
    const suspended = await account(10, "suspended");
    const blocker = committer.commit({ accountId: rich, messages: [message(rich)] });
    const outcomes = await Promise.allSettled([
      blocker,
      committer.commit({ accountId: poor, messages: [message(poor, "x".repeat(200))] }), // 2: fits
      committer.commit({ accountId: rich, messages: [message(rich)] }),
      committer.commit({ accountId: poor, messages: [message(poor, "x".repeat(200))] }), // 2: 1 left
      committer.commit({ accountId: poor, messages: [message(poor)] }), // 1: fits
      committer.commit({ accountId: suspended, messages: [message(suspended)] }),
    ]);
    expect(
      outcomes.map((o) => (o.status === "fulfilled" ? "ok" : (o.reason as { code: string }).code)),
    ).toEqual(["ok", "ok", "ok", "INSUFFICIENT_CREDITS", "ok", "FORBIDDEN"]);
    expect(await balanceOf(poor)).toBe(0);
    // The transaction path writes the accepted items of an account as one charge too.
    expect(await ledgerOf(poor)).toEqual([{ delta: -3, after: 0, id: null, count: 2 }]);
    // Counted in the statements that wrote them, by whichever path: none of the refused.
    expect(await countedOf(poor)).toEqual({ queued: 2 });
    expect(await countedOf(rich)).toEqual({ queued: 2 });
    expect(await countedOf(suspended)).toEqual({});
    expect(await balanceOf(rich)).toBe(8);
    expect(await balanceOf(suspended)).toBe(10);
  });

  it("never overspends with two committers (two processes) racing on one balance", async () => {
    const id = await account(40);
    const committers = [new GroupCommitter(pool), new GroupCommitter(pool)];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        committers[i % 2]!.commit({ accountId: id, messages: [message(id)] }),
      ),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(40);
    expect(await balanceOf(id)).toBe(0);
    const ledger = await ledgerOf(id);
    expect(ledger.reduce((sum, e) => sum + e.count, 0)).toBe(40);
    // In commit order each entry starts where the one before ended: the running balance is
    // consistent across flushes and processes.
    ledger.reduce((before, entry) => {
      expect(entry.after).toBe(before + entry.delta);
      return entry.after;
    }, 40);
  });

  it("accepts everything when flushes of one account run at once (a deadlock between them is retried)", async () => {
    // Concurrent flushes of one account can deadlock on its balance row even though each
    // locks it first: the foreign-key checks of a flush lock the row version it just
    // updated while the next flush waits for it (seen with four flushes in flight).
    const id = await account(1_000_000);
    const wide = new pg.Pool({ connectionString: world.databaseUrl, max: 16 });
    wide.on("error", () => undefined);
    try {
      const committers = Array.from(
        { length: 4 },
        () => new GroupCommitter(wide, { maxConcurrentFlushes: 4 }),
      );
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20_000 }, (_, i) =>
          committers[i % 4]!.commit({ accountId: id, messages: [message(id)] }),
        ),
      );
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
      expect(refused.map((o) => String(o.reason))).toEqual([]);
      expect(await balanceOf(id)).toBe(1_000_000 - 20_000);
    } finally {
      await wide.end();
    }
  });

  describe("an item checked against its account's suppression list in the flush (optOutField)", () => {
    const optedOutNumber = "+14155550177";

    async function suppress(accountId: string, number = optedOutNumber) {
      await pool.query("INSERT INTO suppressions (account_id, number, source) VALUES ($1, $2, 'api')", [
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
      (await pool.query<{ id: string }>("SELECT id FROM messages WHERE id = ANY($1::text[])", [ids])).rows
        .map((row) => row.id)
        .sort();

    it("refuses the suppressed one in the covered statement, writing and charging it nowhere, and keeps the rest", async () => {
      const committer = new GroupCommitter(pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
      const [a, b] = [await account(10), await account(10)];
      await suppress(a);
      // b has the same number unsuppressed: a list is one account's, never global.
      const items = [
        to(a, "+14155550100"),
        to(a, optedOutNumber),
        to(b, optedOutNumber),
        to(a, optedOutNumber),
      ];
      const { statements, spy } = recordStatements();
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
        spy.mockRestore();
      }
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected"]);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
        code: "RECIPIENT_OPTED_OUT",
        field: "to",
      });
      expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({ field: "phone" });
      // One statement for the four: no lookup of its own before the flush.
      expect(statements).toEqual(["acceptance-write-if-covered"]);
      expect(await storedOf(items.map((m) => m.id))).toEqual([items[0]!.id, items[2]!.id].sort());
      expect([await balanceOf(a), await balanceOf(b)]).toEqual([9, 9]);
      expect(await ledgerOf(a)).toEqual([{ delta: -1, after: 9, id: items[0]!.id, count: 1 }]);
      expect(await countedOf(a)).toEqual({ queued: 1 });
    });

    it("refuses an account's only item when suppressed, leaving its balance and ledger untouched", async () => {
      const committer = new GroupCommitter(pool, { lingerMs: 0 });
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
      const committer = new GroupCommitter(pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
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
      const committer = new GroupCommitter(pool, { lingerMs: 0 });
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
      const { rows } = await pool.query<{ today: boolean; used: number }>(
        "SELECT quota_day = (now() AT TIME ZONE 'UTC')::date AS today, quota_used AS used FROM accounts WHERE id = $1",
        [accountId],
      );
      return rows[0]!;
    }

    async function quotaAccount(dailyQuota: number, usedToday = 0, day = "(now() AT TIME ZONE 'UTC')::date") {
      const id = await account(100);
      await pool.query(
        `UPDATE accounts SET daily_quota = $2, quota_used = $3, quota_day = ${day} WHERE id = $1`,
        [id, dailyQuota, usedToday],
      );
      return id;
    }

    it("counts a covered flush's messages in the same statement", async () => {
      const committer = new GroupCommitter(pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
      const a = await quotaAccount(5, 1);
      const { statements, spy } = recordStatements();
      try {
        await Promise.all([
          committer.commit({ accountId: a, messages: [message(a)] }),
          committer.commit({ accountId: a, messages: [message(a), message(a)] }),
        ]);
      } finally {
        spy.mockRestore();
      }
      expect(statements).toEqual(["acceptance-write-if-covered"]);
      expect(await quotaOf(a)).toEqual({ today: true, used: 4 });
      expect(await balanceOf(a)).toBe(97);
    });

    it("refuses whole the items that do not fit, in order, counting and charging nothing of them", async () => {
      const committer = new GroupCommitter(pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
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
      const committer = new GroupCommitter(pool, { lingerMs: 0 });
      const a = await quotaAccount(2, 2, "(now() AT TIME ZONE 'UTC')::date - 1");
      await committer.commit({ accountId: a, messages: [message(a), message(a)] });
      expect(await quotaOf(a)).toEqual({ today: true, used: 2 });
    });

    it("does not count a send refused as opted out", async () => {
      const committer = new GroupCommitter(pool, { maxConcurrentFlushes: 1, lingerMs: 20 });
      const a = await quotaAccount(1);
      await pool.query(
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

  it("retries a flush PostgreSQL aborted as a deadlock instead of refusing its acceptances", async () => {
    const id = await account(10);
    let aborted = 0;
    // The pool answers the first statement with the error PostgreSQL gives one side of a deadlock.
    const deadlockingOnce = new Proxy(pool, {
      get(target, property, receiver) {
        if (property === "query")
          return (...args: Parameters<pg.Pool["query"]>) => {
            if (aborted++ === 0)
              return Promise.reject(Object.assign(new Error("deadlock detected"), { code: "40P01" }));
            return (target.query as (...a: unknown[]) => unknown)(...args);
          };
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    const committer = new GroupCommitter(deadlockingOnce, { maxConcurrentFlushes: 1 });
    await committer.commit({ accountId: id, messages: [message(id)] });
    expect(aborted).toBe(2);
    expect(await balanceOf(id)).toBe(9);
  });
});
