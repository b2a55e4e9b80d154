import crypto from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { encodeUlid } from "@sms/ids";
import { withDatabase } from "@sms/testing";
import { listPartitions, type PartitionedTable } from "./partitions";

/*
 * The four migrations that turn carrier_receipts into a partitioned table
 * (docs/decisions.md#partitions) run on a live system: dlr-ingest keeps inserting receipts
 * while they run. Here they run on a database migrated up to just before them, holding
 * receipts already, while two writers insert all along: every receipt must be there after, and
 * no insert may wait for more than a moment.
 */
const MIGRATIONS = path.resolve(__dirname, "../../../prisma/migrations");
const FIRST_STEP = "20261128090000_carrier_receipts_partition_key";
const STEPS = 4;
const EXISTING = 200_000;

const migrations = readdirSync(MIGRATIONS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const firstStep = migrations.indexOf(FIRST_STEP);

let admin: pg.Client;
let pool: pg.Pool;
const database = `${process.env.TEST_RUN_ID}_conversion`;

beforeAll(async () => {
  const postgresUrl = process.env.TEST_POSTGRES_URL!;
  admin = new pg.Client({ connectionString: withDatabase(postgresUrl, "postgres") });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  pool = new pg.Pool({ connectionString: withDatabase(postgresUrl, database), max: 4 });
  pool.on("error", () => undefined);
  // Each file whole, as `prisma migrate deploy` sends it (packages/db/src/migrate-adapter.ts).
  for (const name of migrations.slice(0, firstStep)) await apply(name);
}, 120_000);
afterAll(async () => {
  await pool?.end();
  await admin?.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin?.end();
});

/**
 * A converted table's partitions: its legacy and default ones, and `count` periods from the
 * legacy one's end on, the first starting there. Returns that end and the periods.
 */
async function expectConverted(table: PartitionedTable, count: number) {
  const partitions = await listPartitions(pool, table);
  expect(partitions.map((p) => p.name)).toEqual(
    expect.arrayContaining([`${table}_legacy`, `${table}_default`]),
  );
  const periods = partitions.filter((p) => p.name.startsWith(`${table}_p`));
  expect(periods).toHaveLength(count);
  const legacy = partitions.find((p) => p.name === `${table}_legacy`)!;
  expect(periods[0]!.from).toEqual(legacy.to);
  return { legacyEnd: legacy.to!, periods };
}

/** `count` ids of `prefix` whose times are `daysAgo(i)` days before now. */
function idsDaysAgo(prefix: string, count: number, daysAgo: (i: number) => number): string[] {
  return Array.from(
    { length: count },
    (_, i) => `${prefix}_${encodeUlid(Date.now() - daysAgo(i) * 86_400_000, crypto.randomBytes(10))}`,
  );
}

async function apply(name: string): Promise<void> {
  await pool.query(readFileSync(path.join(MIGRATIONS, name, "migration.sql"), "utf8"));
}

/**
 * Applies `steps` while two writers call `write` in a loop (each call writes `rowsPerWrite`
 * rows), from a moment before the first step to a moment after the last: how many rows went in,
 * and the slowest write (ms), which a migration holding a writer back shows.
 */
async function applyWhileWriting(
  steps: string[],
  write: (n: number) => Promise<unknown>,
  rowsPerWrite: number,
): Promise<{ inserted: number; slowest: number }> {
  let writing = true;
  let inserted = 0;
  let slowest = 0;
  const writer = async () => {
    while (writing) {
      const started = performance.now();
      await write(inserted);
      slowest = Math.max(slowest, performance.now() - started);
      inserted += rowsPerWrite;
    }
  };
  const writers = [writer(), writer()];
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const name of steps) await apply(name);
  await new Promise((resolve) => setTimeout(resolve, 100));
  writing = false;
  await Promise.all(writers);
  return { inserted, slowest };
}

it("converts carrier_receipts while receipts keep coming: none lost, no insert held", async () => {
  expect(firstStep).toBeGreaterThan(0);
  await pool.query(
    `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, receipt_key, received_at)
     SELECT 'car_1', 'old-' || n, 'delivered', 'applied', 'old-' || n, now() - make_interval(secs => n)
     FROM generate_series(1, $1::int) AS n`,
    [EXISTING],
  );

  const { inserted, slowest } = await applyWhileWriting(
    migrations.slice(firstStep, firstStep + STEPS),
    (n) =>
      pool.query(
        `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, receipt_key)
         VALUES ('car_1', $1, 'delivered', 'unmatched', $1)`,
        [`new-${n}`],
      ),
    1,
  );

  const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM carrier_receipts");
  expect(rows[0]!.n).toBe(EXISTING + inserted);
  expect(inserted).toBeGreaterThan(10);
  // The validation scan lets writes through, and the last step scans nothing under its locks.
  expect(slowest).toBeLessThan(1000);
  const partitions = await listPartitions(pool, "carrier_receipts");
  expect(partitions.map((p) => p.name)).toContain("carrier_receipts_legacy");
  const legacy = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM carrier_receipts_legacy");
  expect(legacy.rows[0]!.n).toBe(EXISTING + inserted);
  // Ids keep coming from the same sequence, now owned by the partitioned table.
  const next = await pool.query<{ id: string }>(
    `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome) VALUES ('car_1', 'after', 'delivered', 'applied')
     RETURNING id::text`,
  );
  expect(Number(next.rows[0]!.id)).toBeGreaterThan(EXISTING + inserted - 1);
}, 120_000);

/*
 * The three migrations that partition webhook_deliveries and outbox_events by the day of their
 * event id, on the database the test above left: events and deliveries already there, the relay's
 * trigger queueing every new event, and two writers inserting events with their deliveries all along.
 */
const WEBHOOK_FIRST_STEP = "20261129090000_webhook_tables_partition_bound";
const WEBHOOK_STEPS = 3;
const EXISTING_EVENTS = 50_000;

it("converts outbox_events and webhook_deliveries while events keep coming: none lost, every one queued", async () => {
  const webhookStep = migrations.indexOf(WEBHOOK_FIRST_STEP);
  expect(webhookStep).toBeGreaterThanOrEqual(firstStep + STEPS);
  for (const name of migrations.slice(firstStep + STEPS, webhookStep)) await apply(name);
  const eventIds = (count: number, daysAgo: (i: number) => number) => idsDaysAgo("evt", count, daysAgo);
  const insertEvents = (ids: string[]) =>
    pool.query(
      `WITH e AS (
         INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
         SELECT id, 'acc_1', 'msg_1', 'message.sent', 2, '{}' FROM unnest($1::text[]) AS id RETURNING id
       )
       INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, status)
       SELECT id, 'acc_1', 'msg_1', 'message.sent', 'succeeded' FROM e`,
      [ids],
    );
  await insertEvents(eventIds(EXISTING_EVENTS, (i) => i % 20));

  const { inserted, slowest } = await applyWhileWriting(
    migrations.slice(webhookStep, webhookStep + WEBHOOK_STEPS),
    () => insertEvents(eventIds(5, () => 0)),
    5,
  );

  const count = async (sql: string) => (await pool.query<{ n: number }>(sql)).rows[0]!.n;
  expect(inserted).toBeGreaterThan(10);
  expect(await count("SELECT count(*)::int AS n FROM outbox_events")).toBe(EXISTING_EVENTS + inserted);
  expect(await count("SELECT count(*)::int AS n FROM webhook_deliveries")).toBe(EXISTING_EVENTS + inserted);
  // The trigger moved with the table: every event, before and after the swap, is queued once.
  expect(await count("SELECT count(*)::int AS n FROM outbox_pending")).toBe(EXISTING_EVENTS + inserted);
  expect(await count("SELECT count(DISTINCT event_id)::int AS n FROM outbox_pending")).toBe(
    EXISTING_EVENTS + inserted,
  );
  expect(slowest).toBeLessThan(1000);
  for (const table of ["outbox_events", "webhook_deliveries"] as const) {
    // A week of days from the bound on, the bound being the start of the day after tomorrow.
    const { legacyEnd } = await expectConverted(table, 7);
    expect(legacyEnd.getTime()).toBe(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 2 * 86_400_000);
  }
  // A new event lands in its day's partition once the day has one.
  const future = `evt_${encodeUlid(Date.now() + 3 * 86_400_000, crypto.randomBytes(10))}`;
  await insertEvents([future]);
  const { rows } = await pool.query<{ part: string }>(
    "SELECT tableoid::regclass::text AS part FROM outbox_events WHERE id = $1",
    [future],
  );
  expect(rows[0]!.part).toMatch(/^outbox_events_p\d{8}$/);
}, 120_000);

/*
 * The migrations that partition messages, message_events and message_segments by the week of the
 * message id, on the database the tests above left: messages with their history and segments
 * already there, and two writers accepting messages all along, each message with its first event
 * and a segment, and the charge to its account's balance, in one statement, as acceptance and the
 * dispatcher write them.
 */
const MESSAGE_FIRST_STEP = "20261201090000_message_tables_partition_bound";
const MESSAGE_STEPS = 5;
const EXISTING_MESSAGES = 60_000;

it("converts the message tables while messages keep coming: none lost, keys, triggers and weeks in place", async () => {
  const messageStep = migrations.indexOf(MESSAGE_FIRST_STEP);
  expect(messageStep).toBeGreaterThan(firstStep);
  for (const name of migrations.slice(migrations.indexOf(WEBHOOK_FIRST_STEP) + WEBHOOK_STEPS, messageStep))
    await apply(name);
  await pool.query(
    `INSERT INTO accounts (id, name, balance, updated_at) VALUES ('acc_1', 'a', 1000000000, now())
     ON CONFLICT (id) DO UPDATE SET balance = 1000000000`,
  );
  const messageIds = (count: number, daysAgo: (i: number) => number) => idsDaysAgo("msg", count, daysAgo);
  const insertMessages = (ids: string[]) =>
    pool.query(
      `WITH m AS (
         INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged, status)
         SELECT id, 'acc_1', '+14155550100', 'ACME', 'hi', 'GSM7', 1, 1, 'queued' FROM unnest($1::text[]) AS id RETURNING id
       ), e AS (
         INSERT INTO message_events (message_id, sequence, status) SELECT id, 1, 'queued' FROM m
       ), s AS (
         INSERT INTO message_segments (message_id, seq, status) SELECT id, 1, 'pending' FROM m
       )
       UPDATE accounts SET balance = balance - (SELECT count(*) FROM m) WHERE id = 'acc_1'`,
      [ids],
    );
  await insertMessages(messageIds(EXISTING_MESSAGES, (i) => i % 60));

  const { inserted, slowest } = await applyWhileWriting(
    migrations.slice(messageStep, messageStep + MESSAGE_STEPS),
    () => insertMessages(messageIds(5, () => 0)),
    5,
  );

  const count = async (sql: string, values: unknown[] = []) =>
    (await pool.query<{ n: number }>(sql, values)).rows[0]!.n;
  const total = EXISTING_MESSAGES + inserted;
  expect(inserted).toBeGreaterThan(10);
  for (const table of ["messages", "message_events", "message_segments"] as const) {
    expect(await count(`SELECT count(*)::int AS n FROM ${table}`)).toBe(total);
    // 27 weeks from the bound on, the bound being a Monday (00:00 UTC) at least two days ahead.
    const { legacyEnd, periods: weeks } = await expectConverted(table, 27);
    expect(legacyEnd.getUTCDay()).toBe(1);
    expect(legacyEnd.getTime() % 86_400_000).toBe(0);
    expect(legacyEnd.getTime() - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000);
    for (const week of weeks) expect(week.to!.getTime() - week.from!.getTime()).toBe(7 * 86_400_000);
  }
  // The validation scans let writes through, and the swap scans nothing under its locks.
  expect(slowest).toBeLessThan(1000);
  // Every message's status is counted, before and after the swap: the trigger moved with the table.
  expect(await count("SELECT sum(delta)::int AS n FROM message_count_deltas WHERE status = 'queued'")).toBe(
    total,
  );

  // A message due in three weeks lands in its week; its segment's receipt key is still set by the trigger.
  const [due] = messageIds(1, () => -21);
  await insertMessages([due!]);
  const { rows } = await pool.query<{ part: string }>(
    "SELECT tableoid::regclass::text AS part FROM messages WHERE id = $1",
    [due],
  );
  expect(rows[0]!.part).toMatch(/^messages_p\d{8}$/);
  await pool.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, updated_at)
     VALUES ('car_1', 'c', '127.0.0.1', 2775, 's', '', now()) ON CONFLICT DO NOTHING`,
  );
  await pool.query(
    "UPDATE message_segments SET carrier_id = 'car_1', carrier_message_id = ' 00AB ' WHERE message_id = $1",
    [due],
  );
  expect(
    await count(
      "SELECT count(*)::int AS n FROM message_segments WHERE message_id = $1 AND receipt_key = 'ab'",
      [due],
    ),
  ).toBe(1);
  // The keys of messages into accounts and batches hold on the new table.
  await expect(
    pool.query(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged, status)
       VALUES ($1, 'acc_nobody', '+1', 'A', 'x', 'GSM7', 1, 1, 'queued')`,
      [messageIds(1, () => 0)[0]],
    ),
  ).rejects.toMatchObject({ code: "23503" });
}, 180_000);
