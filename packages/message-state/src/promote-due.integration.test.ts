import crypto from "node:crypto";
import { createDatabase, type Database } from "@sms/db";
import { encodeUlid } from "@sms/ids";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { insertAccount, insertMessage } from "../test/fixtures";
import { applyTransition } from "./apply-transition";
import { promoteDueScheduled, type PromotedMessage } from "./promote-due";

const idsOf = (promoted: PromotedMessage[]) => promoted.map((message) => message.messageId);

describe("promoteDueScheduled (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;
  let accountId: string;

  beforeEach(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 10 });
    accountId = await insertAccount(db.pool, 0);
  });
  afterEach(async () => {
    await db.close();
    await world.destroy();
  });

  const past = (ms: number) => new Date(Date.now() - ms);

  async function statusOf(ids: string[]): Promise<Record<string, string>> {
    const { rows } = await db.pool.query<{ id: string; status: string }>(
      "SELECT id, status FROM messages WHERE id = ANY($1)",
      [ids],
    );
    return Object.fromEntries(rows.map((r) => [r.id, r.status]));
  }

  it("queues the due messages, oldest first up to the limit, with history, event and dispatch rows", async () => {
    const due = [];
    for (let i = 0; i < 5; i++)
      due.push(
        await insertMessage(db.pool, {
          accountId,
          status: "scheduled",
          scheduledAt: past(10_000 - i * 1000),
        }),
      );
    const later = await insertMessage(db.pool, {
      accountId,
      status: "scheduled",
      scheduledAt: new Date(Date.now() + 60_000),
    });
    const queued = await insertMessage(db.pool, { accountId, status: "queued" });

    const first = idsOf(await promoteDueScheduled(db.pool, { limit: 3 }));
    expect(first).toEqual(due.slice(0, 3));
    const second = idsOf(await promoteDueScheduled(db.pool, { limit: 3 }));
    expect(second).toEqual(due.slice(3));
    expect(idsOf(await promoteDueScheduled(db.pool, { limit: 3 }))).toEqual([]);

    const statuses = await statusOf([...due, later, queued]);
    for (const id of due) expect(statuses[id]).toBe("queued");
    expect(statuses[later]).toBe("scheduled");

    const { rows: events } = await db.pool.query(
      "SELECT message_id, sequence, status, previous_status FROM message_events WHERE sequence = 2 ORDER BY message_id",
    );
    expect(events).toEqual(
      [...due]
        .sort()
        .map((id) => ({ message_id: id, sequence: 2, status: "queued", previous_status: "scheduled" })),
    );
    const { rows: outbox } = await db.pool.query(
      "SELECT id, message_id, type, sequence, account_id, payload FROM events ORDER BY message_id",
    );
    expect(outbox.map((o) => o.message_id)).toEqual([...due].sort());
    for (const o of outbox) {
      expect(o).toMatchObject({ type: "message.queued", sequence: 2, account_id: accountId });
      expect(o.id).toMatch(/^evt_/);
      expect(o.payload).toEqual({
        to: "+14155550100",
        status: "queued",
        previous_status: "scheduled",
        sender_id: "ACME",
        segments: 1,
      });
    }
    const { rows: dispatch } = await db.pool.query(
      "SELECT message_id FROM dispatch_outbox ORDER BY message_id",
    );
    expect(dispatch.map((d) => d.message_id)).toEqual([...due].sort());
    const { rows: sequences } = await db.pool.query(
      "SELECT DISTINCT status_sequence FROM messages WHERE id = ANY($1)",
      [due],
    );
    expect(sequences).toEqual([{ status_sequence: 2 }]);
  });

  it("uses the given time instead of the database clock", async () => {
    const id = await insertMessage(db.pool, {
      accountId,
      status: "scheduled",
      scheduledAt: new Date(Date.now() + 60_000),
    });
    expect(idsOf(await promoteDueScheduled(db.pool, { now: new Date() }))).toEqual([]);
    expect(idsOf(await promoteDueScheduled(db.pool, { now: new Date(Date.now() + 61_000) }))).toEqual([id]);
  });

  it("promotes a message from before the tables were partitioned, whose id tells when it was made", async () => {
    // Accepted five days ago for now: its id is five days old (the rows from before the
    // conversion), older than any due-time id of a message still valid.
    const id = `msg_${encodeUlid(Date.now() - 5 * 86_400_000, crypto.randomBytes(10))}`;
    await db.pool.query(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, scheduled_at, expires_at)
       VALUES ($1, $2, '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, 'scheduled', now() - interval '1 second',
               now() + interval '2 days')`,
      [id, accountId],
    );
    await db.pool.query(
      "INSERT INTO message_events (message_id, sequence, status) VALUES ($1, 1, 'scheduled')",
      [id],
    );
    const { rows } = await db.pool.query(
      "SELECT tableoid::regclass::text AS partition FROM messages WHERE id = $1",
      [id],
    );
    expect(rows[0].partition).toBe("messages_legacy");
    expect(idsOf(await promoteDueScheduled(db.pool))).toEqual([id]);
  });

  it("runs on a pool of one connection (its look-ups never wait for the connection its transaction holds)", async () => {
    const single = createDatabase(world.databaseUrl, { poolSize: 1 });
    try {
      const id = await insertMessage(db.pool, { accountId, status: "scheduled", scheduledAt: past(1000) });
      expect(idsOf(await promoteDueScheduled(single.pool))).toEqual([id]);
    } finally {
      await single.close();
    }
  }, 10_000);

  it("never promotes a canceled message", async () => {
    const id = await insertMessage(db.pool, { accountId, status: "scheduled", scheduledAt: past(1000) });
    await applyTransition(db.pool, { messageId: id, to: "canceled", at: new Date() });
    expect(idsOf(await promoteDueScheduled(db.pool))).toEqual([]);
    expect(await statusOf([id])).toEqual({ [id]: "canceled" });
  });

  it("skips a row a cancel holds instead of waiting, and the cancel wins", async () => {
    const held = await insertMessage(db.pool, { accountId, status: "scheduled", scheduledAt: past(2000) });
    const free = await insertMessage(db.pool, { accountId, status: "scheduled", scheduledAt: past(1000) });
    const cancel = await db.pool.connect();
    try {
      await cancel.query("BEGIN");
      expect(
        await applyTransition(cancel, { messageId: held, to: "canceled", at: new Date() }),
      ).toMatchObject({
        applied: true,
      });
      // The cancel's transaction still holds the row: promotion must not block on it.
      expect(idsOf(await promoteDueScheduled(db.pool))).toEqual([free]);
      await cancel.query("COMMIT");
    } finally {
      cancel.release();
    }
    expect(idsOf(await promoteDueScheduled(db.pool))).toEqual([]);
    expect(await statusOf([held, free])).toEqual({ [held]: "canceled", [free]: "queued" });
  });

  it("rolls back with the caller's transaction", async () => {
    const id = await insertMessage(db.pool, { accountId, status: "scheduled", scheduledAt: past(1000) });
    const client = await db.pool.connect();
    try {
      await client.query("BEGIN");
      expect(idsOf(await promoteDueScheduled(client))).toEqual([id]);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
    expect(await statusOf([id])).toEqual({ [id]: "scheduled" });
    const { rows } = await db.pool.query(
      "SELECT (SELECT count(*) FROM events)::int AS outbox, (SELECT count(*) FROM dispatch_outbox)::int AS dispatch",
    );
    expect(rows[0]).toEqual({ outbox: 0, dispatch: 0 });
  });

  it("never promotes a message twice when two callers run at once", async () => {
    const total = 1000;
    await db.pool.query(
      `WITH m AS (
         INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                               status, scheduled_at)
         SELECT 'msg_' || lpad(g::text, 26, '0'), $1, '+14155550100', 'ACME', 'x', 'GSM7', 1, 1, 'scheduled',
                now() - interval '1 second' * (g % 7)
         FROM generate_series(1, $2) AS g RETURNING id)
       INSERT INTO message_events (message_id, sequence, status) SELECT id, 1, 'scheduled' FROM m`,
      [accountId, total],
    );
    const drain = async () => {
      const mine: string[] = [];
      for (;;) {
        const ids = idsOf(await promoteDueScheduled(db.pool, { limit: 37 }));
        if (ids.length === 0) return mine;
        mine.push(...ids);
      }
    };
    const [a, b] = await Promise.all([drain(), drain()]);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    const both = new Set([...a, ...b]);
    expect(a.length + b.length).toBe(total);
    expect(both.size).toBe(total);
    const { rows } = await db.pool.query(
      `SELECT (SELECT count(*) FROM message_events WHERE status = 'queued')::int AS events,
              (SELECT count(DISTINCT message_id) FROM message_events WHERE status = 'queued')::int AS messages,
              (SELECT count(*) FROM events)::int AS outbox,
              (SELECT count(*) FROM dispatch_outbox)::int AS dispatch,
              (SELECT count(*) FROM messages WHERE status = 'queued' AND status_sequence = 2)::int AS queued`,
    );
    expect(rows[0]).toEqual({
      events: total,
      messages: total,
      outbox: total,
      dispatch: total,
      queued: total,
    });
  });
});
