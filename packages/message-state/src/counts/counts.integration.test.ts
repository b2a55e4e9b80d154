import fc from "fast-check";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { applyTransitions } from "../apply-transition";
import { expireOverdue, timeOutReceipts } from "../expiry";
import { promoteDueScheduled } from "../promote-due";
import { allowedFrom, MESSAGE_STATUSES, type MessageStatus } from "../transitions";
import {
  countAccountHours,
  countPlatformStatuses,
  foldMessageCounts,
  MESSAGE_COUNT_DELTAS_OF_ACCEPTED,
  type HourCount,
} from "./index";

const HOUR_MS = 3600_000;
const BASE_HOUR = Math.floor(Date.now() / HOUR_MS) - 6;

type Action =
  | {
      kind: "accept";
      account: number;
      count: number;
      status: "queued" | "scheduled";
      hour: number;
      due: boolean;
      expired: boolean;
    }
  | { kind: "transition"; from: MessageStatus; to: MessageStatus; count: number }
  | { kind: "promote" }
  | { kind: "expire" }
  | { kind: "timeOutReceipts" }
  | { kind: "fold"; limit: number };

const actions: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant("accept" as const),
    account: fc.integer({ min: 0, max: 1 }),
    count: fc.integer({ min: 1, max: 8 }),
    status: fc.constantFrom("queued" as const, "scheduled" as const),
    hour: fc.integer({ min: 0, max: 5 }),
    due: fc.boolean(),
    expired: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("transition" as const),
    from: fc.constantFrom(...MESSAGE_STATUSES),
    // Every status some message can move to (applyTransitions throws for scheduled, which none can).
    to: fc.constantFrom(...MESSAGE_STATUSES.filter((status) => allowedFrom(status).length > 0)),
    count: fc.integer({ min: 1, max: 5 }),
  }),
  fc.constant({ kind: "promote" as const }),
  fc.constant({ kind: "expire" as const }),
  fc.constant({ kind: "timeOutReceipts" as const }),
  fc.record({ kind: fc.constant("fold" as const), limit: fc.integer({ min: 1, max: 20 }) }),
);

describe("message counts (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 4 });
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  async function insertAccount(): Promise<string> {
    const id = newId("acc");
    await db.pool.query(
      "INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'T', 1000, now())",
      [id],
    );
    return id;
  }

  /** Messages, their first history row and their count deltas in one statement, as acceptance writes them. */
  async function accept(accountId: string, action: Extract<Action, { kind: "accept" }>): Promise<void> {
    const createdAt = new Date((BASE_HOUR + action.hour) * HOUR_MS + 17 * 60_000);
    const scheduledAt =
      action.status === "scheduled" ? new Date(Date.now() + (action.due ? -1 : 1) * HOUR_MS) : null;
    const expiresAt = new Date(Date.now() + (action.expired ? -1 : 24) * HOUR_MS);
    await db.pool.query(
      `WITH m AS (
         INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                               status, scheduled_at, expires_at, created_at, updated_at)
         SELECT id, $2, '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, $3::"MessageStatus", $4, $5, $6, $6
         FROM unnest($1::text[]) AS t(id) RETURNING id, account_id, status, created_at
       ), events_in AS (
         INSERT INTO message_events (message_id, sequence, status, occurred_at) SELECT id, 1, status, created_at FROM m
       )
       ${MESSAGE_COUNT_DELTAS_OF_ACCEPTED}`,
      [
        Array.from({ length: action.count }, () => newId("msg")),
        accountId,
        action.status,
        scheduledAt,
        expiresAt,
        createdAt,
      ],
    );
  }

  async function recount(accountId: string): Promise<HourCount[]> {
    const { rows } = await db.pool.query<HourCount>(
      `SELECT floor(extract(epoch FROM created_at) / 3600)::int AS hour, status::text AS status, count(*)::int AS n
       FROM messages WHERE account_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [accountId],
    );
    return rows;
  }

  async function recountPlatform(): Promise<Record<string, number>> {
    const { rows } = await db.pool.query<{ status: string; n: number }>(
      "SELECT status::text AS status, count(*)::int AS n FROM messages GROUP BY 1",
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  const everyHour = [new Date(0), new Date(4e12)] as const;

  async function run(accounts: string[], action: Action): Promise<void> {
    switch (action.kind) {
      case "accept":
        return accept(accounts[action.account]!, action);
      case "transition": {
        const { rows } = await db.pool.query<{ id: string }>(
          `SELECT id FROM messages WHERE account_id = ANY($1) AND status = $2::"MessageStatus" ORDER BY random() LIMIT $3`,
          [accounts, action.from, action.count],
        );
        // Disallowed changes (delivered → sent, …) are refused by the state machine and must count nothing.
        await applyTransitions(
          db.pool,
          rows.map((r) => ({
            messageId: r.id,
            to: action.to,
            at: new Date(),
            errorCode: action.to === "failed" ? "X" : null,
          })),
        );
        return;
      }
      case "promote":
        await promoteDueScheduled(db.pool);
        return;
      case "expire":
        await expireOverdue(db.pool);
        return;
      case "timeOutReceipts":
        await timeOutReceipts(db.pool, { graceSeconds: 0 });
        return;
      case "fold":
        await foldMessageCounts(db.pool, { limit: action.limit });
        return;
    }
  }

  it("equal a recount of the messages after any sequence of acceptances, transitions, sweeps and folds", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(actions, { minLength: 1, maxLength: 30 }), async (steps) => {
        const accounts = [await insertAccount(), await insertAccount()];
        for (const step of steps) await run(accounts, step);
        for (const accountId of accounts)
          expect(await countAccountHours(db.pool, accountId, ...everyHour)).toEqual(await recount(accountId));
        expect(await countPlatformStatuses(db.pool, MESSAGE_STATUSES)).toEqual(await recountPlatform());
        // Folding everything changes where the counts are kept, not what they are.
        while ((await foldMessageCounts(db.pool, { limit: 7 })) > 0);
        for (const accountId of accounts)
          expect(await countAccountHours(db.pool, accountId, ...everyHour)).toEqual(await recount(accountId));
        const { rows } = await db.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM message_count_deltas",
        );
        expect(rows[0]!.n).toBe(0);
      }),
      { numRuns: 50 },
    );
  });

  it("keeps no count row at 0 once folded", async () => {
    const accountId = await insertAccount();
    await accept(accountId, {
      kind: "accept",
      account: 0,
      count: 2,
      status: "queued",
      hour: 1,
      due: false,
      expired: false,
    });
    const { rows } = await db.pool.query<{ id: string }>("SELECT id FROM messages WHERE account_id = $1", [
      accountId,
    ]);
    await foldMessageCounts(db.pool, { limit: 1000 });
    await applyTransitions(
      db.pool,
      rows.map((r) => ({ messageId: r.id, to: "sent" as const, at: new Date() })),
    );
    await foldMessageCounts(db.pool, { limit: 1000 });
    const counts = await db.pool.query<{ status: string; count: string }>(
      "SELECT status::text AS status, count::text AS count FROM message_counts WHERE account_id = $1",
      [accountId],
    );
    expect(counts.rows).toEqual([{ status: "sent", count: "2" }]);
  });

  it("lets one replica fold at a time: a second folder finds the lock taken and folds nothing", async () => {
    const accountId = await insertAccount();
    await accept(accountId, {
      kind: "accept",
      account: 0,
      count: 1,
      status: "queued",
      hour: 2,
      due: false,
      expired: false,
    });
    const holder = await db.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(hashtext('message_counts_fold'))");
      expect(await foldMessageCounts(db.pool, { limit: 1000 })).toBe(0);
      await holder.query("ROLLBACK");
    } finally {
      holder.release();
    }
    expect(await foldMessageCounts(db.pool, { limit: 1000 })).toBeGreaterThan(0);
  });
});
