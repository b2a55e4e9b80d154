import pg from "pg";
import { GroupCommitter } from "./group-committer";
import { committerWorld } from "./fixtures/committer-world";

describe("GroupCommitter (real PostgreSQL)", () => {
  const w = committerWorld();
  const { account, message, ledgerOf, balanceOf, countedOf, recordStatements } = w;

  it("charges a covered flush in one statement: running balances, history, outbox and SMPP records", async () => {
    // No linger: the first flush starts at once (the linger has a test of its own).
    const committer = new GroupCommitter(w.pool, { maxConcurrentFlushes: 1, lingerMs: 0 });
    const [a, b] = [await account(100), await account(50)];
    const items = [
      { accountId: a, messages: [message(a), message(a, "x".repeat(200))] }, // 1 + 2 segments
      { accountId: b, messages: [message(b)] },
      { accountId: a, messages: [message(a)] },
    ];
    const recorded = recordStatements();
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
      recorded.stop();
    }
    // No BEGIN, no separate lock, no COMMIT: one autocommit statement per flush.
    expect(recorded.names()).toEqual(["acceptance-write-if-covered", "acceptance-write-if-covered"]);

    expect(await balanceOf(a)).toBe(96);
    expect(await balanceOf(b)).toBe(48);
    // One charge per account and statement; the message is named when the charge is for one.
    expect(await ledgerOf(a)).toEqual([{ delta: -4, after: 96, id: null, count: 3 }]);
    expect(await ledgerOf(b)).toEqual([
      { delta: -1, after: 49, id: expect.stringMatching(/^msg_/), count: 1 },
      { delta: -1, after: 48, id: items[1]!.messages[0]!.id, count: 1 },
    ]);
    const counts = await w.pool.query(
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
    const submits = await w.pool.query(
      "SELECT id, account_id, message_id, registered_delivery FROM smpp_submits",
    );
    const smppMessage = items[1]!.messages[0]!.id;
    expect(submits.rows).toEqual([
      { id: smppMessage, account_id: b, message_id: smppMessage, registered_delivery: 1 },
    ]);
  });

  it("waits its linger when idle, so the acceptances arriving meanwhile share one statement", async () => {
    const committer = new GroupCommitter(w.pool, { lingerMs: 60 });
    const a = await account(100);
    const recorded = recordStatements();
    try {
      const started = Date.now();
      const first = committer.commit({ accountId: a, messages: [message(a)] });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = committer.commit({ accountId: a, messages: [message(a)] });
      await Promise.all([first, second]);
      // setTimeout may fire a millisecond before Date.now() says the time is up.
      expect(Date.now() - started).toBeGreaterThanOrEqual(58);
    } finally {
      recorded.stop();
    }
    expect(recorded.names()).toEqual(["acceptance-write-if-covered"]);
    expect(await ledgerOf(a)).toEqual([{ delta: -2, after: 98, id: null, count: 2 }]);
  });

  it("queues a message.queued event marked by its class: high ahead of the backlog, bulk behind the rest", async () => {
    const committer = new GroupCommitter(w.pool);
    const id = await account(10);
    const [high, normal, bulk] = [
      message(id, "code 123456", "high"),
      message(id, "hello", "normal"),
      message(id, "sale", "bulk"),
    ];
    await committer.commit({ accountId: id, messages: [high, normal, bulk] });
    const { rows } = await w.pool.query<{ message_id: string; high: boolean; bulk: boolean }>(
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
    const committer = new GroupCommitter(w.pool, { maxConcurrentFlushes: 1 });
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
    const committers = [new GroupCommitter(w.pool), new GroupCommitter(w.pool)];
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
    const wide = new pg.Pool({ connectionString: w.databaseUrl, max: 16 });
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

  it("retries a flush PostgreSQL aborted as a deadlock instead of refusing its acceptances", async () => {
    const id = await account(10);
    let aborted = 0;
    // The pool answers the first statement with the error PostgreSQL gives one side of a deadlock.
    const deadlockingOnce = new Proxy(w.pool, {
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
