import crypto from "node:crypto";
import type pg from "pg";
import { encodeUlid, idBoundAt } from "@sms/ids";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { dropPartitionsBefore, ensurePartitions, listPartitions } from "./partitions";

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);

describe("day partitions of carrier_receipts (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: pg.Pool;

  beforeEach(async () => {
    world = await createTestWorld();
    db = world.pool(3);
  });
  afterEach(() => world.destroy());

  const receipt = (receivedAt: Date, id = "c1") =>
    db.query<{ partition: string }>(
      `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, received_at)
       VALUES ('car_1', $1, 'delivered', 'unmatched', $2) RETURNING tableoid::regclass::text AS partition`,
      [id, receivedAt],
    );
  const partitionOf = async (receivedAt: Date) => (await receipt(receivedAt)).rows[0]!.partition;

  it("a migrated database has the partition of what came before, a week of days ahead and a default", async () => {
    const partitions = await listPartitions(db, "carrier_receipts");
    // Oldest first: the old partition (from MINVALUE), then the days in order, the default last.
    expect(partitions[0]!.name).toBe("carrier_receipts_legacy");
    const froms = partitions.filter((p) => p.from).map((p) => p.from!.getTime());
    expect(froms).toEqual([...froms].sort((a, b) => a - b));
    const legacy = partitions.find((p) => p.name === "carrier_receipts_legacy")!;
    expect(legacy.from).toBeNull();
    expect(legacy.to!.getTime() % DAY).toBe(0);
    const days = partitions.filter((p) => /_p\d{8}$/.test(p.name));
    expect(days).toHaveLength(7);
    expect(days[0]!.from).toEqual(legacy.to);
    for (const day of days) expect(day.to!.getTime() - day.from!.getTime()).toBe(DAY);
    expect(partitions.filter((p) => p.isDefault).map((p) => p.name)).toEqual(["carrier_receipts_default"]);
    // The id sequence belongs to the partitioned table, so dropping the old partition keeps it.
    const owner = await db.query("SELECT pg_get_serial_sequence('carrier_receipts', 'id') AS seq");
    expect(owner.rows[0].seq).toBe("public.carrier_receipts_id_seq");
  });

  it("creates the missing days across a month boundary, each row lands in its UTC day", async () => {
    const created = await ensurePartitions(
      db,
      "carrier_receipts",
      at("2031-01-30T15:00:00Z"),
      at("2031-02-02T00:00:00Z"),
    );
    expect(created).toEqual([
      "carrier_receipts_p20310130",
      "carrier_receipts_p20310131",
      "carrier_receipts_p20310201",
    ]);
    expect(await partitionOf(at("2031-01-31T23:59:59.999Z"))).toBe("carrier_receipts_p20310131");
    expect(await partitionOf(at("2031-02-01T00:00:00.000Z"))).toBe("carrier_receipts_p20310201");
    // A day with no partition yet goes to the default one: the insert never fails.
    expect(await partitionOf(at("2031-02-05T12:00:00Z"))).toBe("carrier_receipts_default");
    // Again: nothing new.
    expect(
      await ensurePartitions(db, "carrier_receipts", at("2031-01-30T00:00:00Z"), at("2031-02-02T00:00:00Z")),
    ).toEqual([]);
  });

  it("skips a day whose rows already went to the default partition, and creates the others", async () => {
    await receipt(at("2031-03-02T08:00:00Z"));
    const created = await ensurePartitions(
      db,
      "carrier_receipts",
      at("2031-03-01T00:00:00Z"),
      at("2031-03-04T00:00:00Z"),
    );
    expect(created).toEqual(["carrier_receipts_p20310301", "carrier_receipts_p20310303"]);
    expect((await db.query("SELECT 1 FROM carrier_receipts_default")).rowCount).toBe(1);
  });

  it("drops exactly the days wholly before the cutoff, never the default", async () => {
    await ensurePartitions(db, "carrier_receipts", at("2031-04-01T00:00:00Z"), at("2031-04-04T00:00:00Z"));
    await receipt(at("2031-04-01T10:00:00Z"), "gone");
    await receipt(at("2031-04-02T10:00:00Z"), "kept");
    await receipt(at("2031-04-09T10:00:00Z"), "default");
    const dropped = await dropPartitionsBefore(db, "carrier_receipts", at("2031-04-02T23:00:00Z"));
    // Every partition up to 2031-04-02 00:00: the old one, the migration's week, April 1st.
    expect(dropped.map((p) => p.name)).toContain("carrier_receipts_legacy");
    expect(dropped.map((p) => p.name)).toContain("carrier_receipts_p20310401");
    expect(dropped.map((p) => p.name)).not.toContain("carrier_receipts_p20310402");
    const left = await db.query<{ id: string }>(
      "SELECT carrier_message_id AS id FROM carrier_receipts ORDER BY 1",
    );
    expect(left.rows.map((r) => r.id)).toEqual(["default", "kept"]);
    // New receipts still get ids after the old partition, which the sequence was made from, is gone.
    expect((await receipt(at("2031-04-02T11:00:00Z"), "new")).rowCount).toBe(1);
  });

  it("gives way to a transaction holding the table instead of queueing every insert behind the drop", async () => {
    await ensurePartitions(db, "carrier_receipts", at("2031-05-01T00:00:00Z"), at("2031-05-02T00:00:00Z"));
    const holder = await db.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM carrier_receipts_p20310501 LIMIT 1");
      const started = Date.now();
      const dropped = await dropPartitionsBefore(db, "carrier_receipts", at("2031-05-02T00:00:00Z"));
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(dropped.map((p) => p.name)).not.toContain("carrier_receipts_p20310501");
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    expect(
      (await dropPartitionsBefore(db, "carrier_receipts", at("2031-05-02T00:00:00Z"))).map((p) => p.name),
    ).toEqual(["carrier_receipts_p20310501"]);
  });
});

describe("week partitions of the message tables (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: pg.Pool;

  beforeEach(async () => {
    world = await createTestWorld();
    db = world.pool(3);
    await db.query("INSERT INTO accounts (id, name, updated_at) VALUES ('acc_1', 'a', now())");
  });
  afterEach(() => world.destroy());

  const messageAt = (time: Date) => `msg_${encodeUlid(time.getTime(), crypto.randomBytes(10))}`;
  const insertMessage = (id: string, client: pg.Pool | pg.PoolClient = db) =>
    client.query<{ partition: string }>(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged, status)
       VALUES ($1, 'acc_1', '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, 'queued') RETURNING tableoid::regclass::text AS partition`,
      [id],
    );

  it("makes weeks from Monday 00:00 UTC, across a year's end, and a message lands in the week of its id", async () => {
    const created = await ensurePartitions(
      db,
      "messages",
      at("2031-12-25T12:00:00Z"), // a Thursday
      at("2032-01-06T00:00:00Z"),
    );
    expect(created).toEqual(["messages_p20311222", "messages_p20311229", "messages_p20320105"]);
    const weeks = (await listPartitions(db, "messages")).filter((p) => created.includes(p.name));
    for (const week of weeks) {
      expect(week.from!.getUTCDay()).toBe(1);
      expect(week.to!.getTime() - week.from!.getTime()).toBe(7 * DAY);
    }
    // Sunday 23:59:59.999 is the week's last moment; Monday 00:00 the next week's first.
    expect((await insertMessage(messageAt(at("2032-01-04T23:59:59.999Z")))).rows[0]!.partition).toBe(
      "messages_p20311229",
    );
    expect((await insertMessage(messageAt(at("2032-01-05T00:00:00Z")))).rows[0]!.partition).toBe(
      "messages_p20320105",
    );
  });

  it("gives a new week of segments a fifth of each page free, as the table had", async () => {
    await ensurePartitions(db, "message_segments", at("2031-06-02T00:00:00Z"), at("2031-06-03T00:00:00Z"));
    const { rows } = await db.query<{ options: string[] | null }>(
      "SELECT reloptions AS options FROM pg_class WHERE relname = 'message_segments_p20310602'",
    );
    expect(rows[0]!.options).toEqual(["fillfactor=80"]);
  });

  it("makes a week while a writer holds the table, without waiting for it or holding it back", async () => {
    const writer = await db.connect();
    try {
      await writer.query("BEGIN");
      await insertMessage(messageAt(new Date()), writer);
      const started = Date.now();
      // CREATE TABLE … PARTITION OF would wait for the writer's lock and give up after its second.
      expect(
        await ensurePartitions(db, "messages", at("2031-07-07T00:00:00Z"), at("2031-07-08T00:00:00Z")),
      ).toEqual(["messages_p20310707"]);
      expect(Date.now() - started).toBeLessThan(1000);
      // And the writer goes on meanwhile.
      await insertMessage(messageAt(at("2031-07-08T00:00:00Z")), writer);
    } finally {
      await writer.query("ROLLBACK");
      writer.release();
    }
  });
});

describe("id_bound_at (real PostgreSQL)", () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await createTestWorld();
  });
  afterAll(() => world.destroy());

  it("is idBoundAt in SQL, for any prefix and millisecond", async () => {
    const times = [0, 1, 1_795_000_000_000, 1_795_000_000_123, Date.now(), 4_102_444_800_000];
    const { rows } = await world
      .pool(1)
      .query<{ bound: string }>(
        "SELECT id_bound_at(p, to_timestamp(t / 1000.0)) AS bound FROM unnest($1::text[], $2::bigint[]) AS x(p, t)",
        [times.map((_, i) => (i % 2 ? "msg" : "evt")), times],
      );
    expect(rows.map((row) => row.bound)).toEqual(times.map((t, i) => idBoundAt(i % 2 ? "msg" : "evt", t)));
  });
});
