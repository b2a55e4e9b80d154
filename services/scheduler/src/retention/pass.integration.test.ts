import { partitionName, listPartitions } from "@sms/db";
import { waitFor, partitionedSince } from "@sms/testing";
import { createRetentionWorld, DAY, POLICY, type RetentionWorld } from "../../test/retention-world";
import { runRetentionPass } from "./pass";

const PARTITIONED = ["carrier_receipts", "webhook_deliveries", "outbox_events"] as const;

describe("retention pass (real PostgreSQL)", () => {
  let w: RetentionWorld;
  let db: RetentionWorld["db"];
  let accountId: string;
  let now: Date;
  let ago: RetentionWorld["ago"];
  let idAt: RetentionWorld["idAt"];
  let ids: RetentionWorld["ids"];
  let message: RetentionWorld["message"];

  beforeEach(async () => {
    w = await createRetentionWorld();
    ({ db, accountId, now, ago, idAt, ids, message } = w);
  });
  afterEach(() => w.destroy());

  it("deletes exactly what is past retention, children first, and keeps messages that are not final", async () => {
    // Old messages that are not final come first in key order: more than a page of them, so the
    // pass must step over them to reach the final ones behind.
    const keptOpen = [
      await message(120, "queued"),
      await message(119, "sent"),
      await message(118, "scheduled"),
    ];
    const gone = [
      await message(100, "delivered", true),
      await message(95, "failed", true),
      await message(91, "canceled"),
    ];
    const keptYoung = [await message(89, "delivered", true), await message(1, "delivered", true)];

    // Receipts, events and deliveries are dropped by whole day partitions. Model a database
    // converted long ago: its partitions of the rows from before the conversion are gone, and
    // past days have their own.
    await partitionedSince(db.pool, PARTITIONED, ago(50), now);
    const receipt = (days: number) =>
      db.pool.query(
        `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, received_at)
         VALUES ('car_1', $1, 'delivered', 'ignored', $2) RETURNING id`,
        [`c${days}`, ago(days)],
      );
    await receipt(31);
    await receipt(45);
    await receipt(29);

    const event = async (days: number, published: boolean) => {
      const id = idAt("evt", ago(days));
      await db.pool.query(
        `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload, created_at)
         VALUES ($1, $2, 'msg_x', 'message.delivered', 1, '{}', $3)`,
        [id, accountId, ago(days)],
      );
      if (published) await db.pool.query("DELETE FROM outbox_pending WHERE event_id = $1", [id]);
      return id;
    };
    await event(8, true);
    const unpublished = await event(9, false);
    const recentEvent = await event(6, true);

    const delivery = async (days: number, status: string) => {
      const id = idAt("evt", ago(days));
      await db.pool.query(
        `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status, created_at)
         VALUES ($1, $2, 'msg_x', 'message.delivered', '{}', $3, $4)`,
        [id, accountId, status, ago(days)],
      );
      await db.pool.query(
        `INSERT INTO webhook_attempts (event_id, account_id, attempt, url, latency_ms, started_at)
         VALUES ($1, $2, 1, 'https://example.com', 5, $3)`,
        [id, accountId, ago(days)],
      );
      return id;
    };
    await delivery(31, "succeeded");
    const pendingDelivery = await delivery(32, "pending");
    const recentDelivery = await delivery(29, "failed");
    // A published event whose delivery is kept is that delivery's body: it stays with it.
    const eventOfDelivery = await event(10, true);
    await db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, status, created_at)
       VALUES ($1, $2, 'msg_x', 'message.delivered', 'failed', $3)`,
      [eventOfDelivery, accountId, ago(10)],
    );

    for (const [days, expires] of [
      [2, ago(1)],
      [0, new Date(now.getTime() + DAY)],
    ] as const)
      await db.pool.query(
        `INSERT INTO idempotency_records (account_id, api_key_id, key, method, path, request_hash, created_at, expires_at)
         VALUES ($1, 'key_1', $2, 'POST', '/v1/messages', 'h', $3, $4)`,
        [accountId, `k${days}`, ago(days), expires],
      );
    for (const days of [31, 29])
      await db.pool.query(
        "INSERT INTO dashboard_login_attempts (email, succeeded, at) VALUES ($1, false, $2)",
        [`d${days}@example.com`, ago(days)],
      );
    for (const days of [401, 399])
      await db.pool.query(
        `INSERT INTO credit_ledger (account_id, delta, balance_after, reason, created_at)
         VALUES ($1, -1, 0, 'message_charge', $2)`,
        [accountId, ago(days)],
      );
    const inbound = async (days: number) => {
      const id = idAt("in", ago(days));
      await db.pool.query(
        `INSERT INTO inbound_messages (id, account_id, carrier_id, from_addr, to_addr, text, encoding, data_coding, segments, received_at)
         VALUES ($1, $2, 'car_1', '+1', '+2', 'STOP', 'GSM7', 0, 1, $3)`,
        [id, accountId, ago(days)],
      );
      return id;
    };
    await inbound(91);
    const recentInbound = await inbound(89);

    const pass = await runRetentionPass(db.pool, POLICY, { batchSize: 2, maxPerTable: 1000, now });

    expect(pass!.deleted).toMatchObject({
      messages: 3,
      message_events: 4,
      message_segments: 2,
      otps: 3,
      webhook_attempts: 2,
      idempotency_records: 1,
      dashboard_login_attempts: 1,
      credit_ledger: 1,
      inbound_messages: 1,
    });
    expect(await ids("SELECT id FROM messages")).toEqual([...keptOpen, ...keptYoung].sort());
    expect(await ids("SELECT DISTINCT message_id AS id FROM message_events")).toEqual([...keptYoung].sort());
    // The 89-day message's OTP is past the 30 days of OTPs; the message is not.
    expect(await ids("SELECT message_id AS id FROM otps")).toEqual([keptYoung[1]!]);
    expect(await ids("SELECT id FROM messages WHERE id = ANY('{" + gone.join(",") + "}')")).toEqual([]);
    expect(await ids("SELECT carrier_message_id AS id FROM carrier_receipts")).toEqual(["c29"]);
    const dropped = (table: (typeof PARTITIONED)[number]) =>
      pass!.droppedPartitions.filter((p) => p.table === table).map((p) => p.name);
    const partitionOf = (table: (typeof PARTITIONED)[number], days: number) =>
      partitionName(table, ago(days));
    expect(dropped("carrier_receipts")).toEqual(
      expect.arrayContaining([31, 45].map((d) => partitionOf("carrier_receipts", d))),
    );
    expect(dropped("carrier_receipts")).not.toContain(partitionOf("carrier_receipts", 29));
    expect(dropped("carrier_receipts")).toHaveLength(20); // days 50 to 31: every day wholly past the 30 days
    // Days 50 to 31 but the day of the pending delivery.
    expect(dropped("webhook_deliveries")).toHaveLength(19);
    expect(dropped("webhook_deliveries")).not.toContain(partitionOf("webhook_deliveries", 32));
    // Days 50 to 8 (wholly past the 7 days) but those of the unpublished event (9) and of the
    // events whose delivery is kept (10, 29, and the pending one's, 32).
    expect(dropped("outbox_events")).toHaveLength(39);
    for (const days of [9, 10, 29, 32])
      expect(dropped("outbox_events")).not.toContain(partitionOf("outbox_events", days));
    expect(dropped("outbox_events")).toContain(partitionOf("outbox_events", 31));
    // A week of partitions is kept ready ahead: here the pass made the one day between those
    // made above and the migration's week.
    expect(pass!.createdPartitions.sort()).toEqual(
      PARTITIONED.map((table) => partitionName(table, new Date(now.getTime() + DAY))).sort(),
    );
    for (const table of PARTITIONED) {
      const names = (await listPartitions(db.pool, table)).map((p) => p.name);
      for (let d = 0; d <= 7; d++)
        expect(names).toContain(partitionName(table, new Date(now.getTime() + d * DAY)));
    }
    expect(await ids("SELECT id FROM outbox_events")).toEqual(
      [unpublished, recentEvent, eventOfDelivery].sort(),
    );
    expect(await ids("SELECT event_id AS id FROM webhook_deliveries")).toEqual(
      [pendingDelivery, recentDelivery, eventOfDelivery].sort(),
    );
    expect(await ids("SELECT event_id AS id FROM webhook_attempts")).toEqual([recentDelivery]);
    expect(await ids("SELECT key AS id FROM idempotency_records")).toEqual(["k0"]);
    expect(await ids("SELECT email AS id FROM dashboard_login_attempts")).toEqual(["d29@example.com"]);
    expect(
      await ids("SELECT (now() - created_at > interval '399.5 days')::text AS id FROM credit_ledger"),
    ).toEqual(["false"]);
    expect(await ids("SELECT id FROM inbound_messages")).toEqual([recentInbound]);

    // Nothing left past retention: a second pass deletes nothing.
    const again = await runRetentionPass(db.pool, POLICY, { batchSize: 2, maxPerTable: 1000, now });
    expect(Object.values(again!.deleted).every((count) => count === 0)).toBe(true);
    expect(again!.droppedPartitions).toEqual([]);
  });

  it("stops a table at maxPerTable and continues there on the next pass", async () => {
    for (let i = 0; i < 5; i++) await message(100 + i, "delivered");
    const first = await runRetentionPass(db.pool, POLICY, { batchSize: 2, maxPerTable: 3, now });
    expect(first!.deleted.messages).toBeGreaterThanOrEqual(3);
    expect(first!.deleted.messages).toBeLessThan(5);
    const second = await runRetentionPass(db.pool, POLICY, { batchSize: 2, maxPerTable: 3, now });
    expect(first!.deleted.messages! + second!.deleted.messages!).toBe(5);
  });

  it("keeps a kind for ever when its days are 0", async () => {
    await message(400, "delivered", true);
    const deleted = await runRetentionPass(
      db.pool,
      { ...POLICY, messages: 0 },
      { batchSize: 10, maxPerTable: 100, now },
    );
    expect(deleted!.deleted.messages).toBeUndefined();
    expect((await db.pool.query("SELECT 1 FROM messages")).rowCount).toBe(1);
  });

  it("runs on one replica at a time: a pass while another holds the lock does nothing", async () => {
    await message(100, "delivered");
    const other = await db.pool.connect();
    try {
      await other.query("SELECT pg_advisory_lock(hashtextextended('sms.retention', 0))");
      expect(await runRetentionPass(db.pool, POLICY, { batchSize: 10, maxPerTable: 100, now })).toBeNull();
      expect((await db.pool.query("SELECT 1 FROM messages")).rowCount).toBe(1);
      await other.query("SELECT pg_advisory_unlock(hashtextextended('sms.retention', 0))");
    } finally {
      other.release();
    }
    expect(
      (await runRetentionPass(db.pool, POLICY, { batchSize: 10, maxPerTable: 100, now }))!.deleted.messages,
    ).toBe(1);
  });

  it("a pass that fails lets the lock go with its connection, so the next pass is not locked out", async () => {
    await message(100, "delivered");
    // A real failure halfway through the pass: a table it deletes from is gone.
    await db.pool.query("DROP TABLE dashboard_login_attempts");
    await expect(runRetentionPass(db.pool, POLICY, { batchSize: 10, maxPerTable: 100, now })).rejects.toThrow(
      /dashboard_login_attempts/,
    );
    const advisory = async () =>
      (
        await db.pool.query<{ n: number }>(
          // This test's database only: pg_locks is server-wide, and other suites take advisory locks too.
          `SELECT count(*)::int AS n FROM pg_locks
           WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        )
      ).rows[0]!.n;
    await waitFor(async () => (await advisory()) === 0, { what: "the advisory lock to be released" });
    expect((await db.pool.query("SELECT 1 FROM messages")).rowCount).toBe(0);
  });

  it("skips a message whose row another transaction holds, without waiting for it", async () => {
    const held = await message(100, "delivered");
    const free = await message(99, "delivered");
    const other = await db.pool.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT 1 FROM messages WHERE id = $1 FOR UPDATE", [held]);
      const deleted = await runRetentionPass(db.pool, POLICY, { batchSize: 10, maxPerTable: 100, now });
      expect(deleted!.deleted.messages).toBe(1);
      expect(await ids("SELECT id FROM messages")).toEqual([held]);
      expect(free).not.toBe(held);
    } finally {
      await other.query("ROLLBACK");
      other.release();
    }
  });
});
