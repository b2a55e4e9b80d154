import crypto from "node:crypto";
import pg from "pg";
import { partitionName } from "@sms/db";
import { encodeUlid, idBoundAt, idRange } from "@sms/ids";
import {
  createTestWorld,
  partitionedSince,
  partitionsPlanned,
  plannedReadsOf,
  tablesRead,
  type TestWorld,
} from "@sms/testing";
import { DELIVERY_STATEMENTS } from "../src/delivery-store";

/*
 * webhook_deliveries and outbox_events are partitioned by the day of their event id
 * (docs/decisions.md#partitions). A job's claim, its records and its failures name their
 * deliveries by id, so each must read the days of those ids only, not thirty days of indexes.
 * The message tables go by week and keep 13 (docs/decisions.md#message-weeks): the data of a
 * claim's status events is planned for the weeks of its messages only.
 */
const DAY = 86_400_000;
const now = new Date();
const ago = (days: number) => new Date(now.getTime() - days * DAY);
const WEEK = 7 * DAY;
const TABLES = ["webhook_deliveries", "outbox_events"] as const;
const MESSAGE_TABLES = ["messages", "message_events"] as const;

let world: TestWorld;
let pool: pg.Pool;
const eventsOfDay = new Map<number, string[]>();

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(2);
  // A database converted long ago, with 30 past days of events and deliveries.
  await partitionedSince(pool, TABLES, ago(30), now);
  await partitionedSince(pool, [...MESSAGE_TABLES, "message_segments"], ago(91), ago(-7 * 27));
  for (let days = 0; days < 30; days++) {
    const ids = Array.from(
      { length: 3 },
      () => `evt_${encodeUlid(ago(days).getTime(), crypto.randomBytes(10))}`,
    );
    eventsOfDay.set(days, ids);
    await pool.query(
      `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload, created_at)
       SELECT id, 'acc_1', 'msg_1', 'message.delivered', 3, '{"status": "delivered"}', $2 FROM unnest($1::text[]) AS id`,
      [ids, ago(days)],
    );
    await pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, status, next_attempt_at, created_at)
       SELECT id, 'acc_1', 'msg_1', 'message.delivered', 'pending', now(), $2 FROM unnest($1::text[]) AS id`,
      [ids, ago(days)],
    );
  }
  await pool.query("ANALYZE outbox_events, webhook_deliveries");
});
afterAll(() => world.destroy());

const daysOf = (table: (typeof TABLES)[number], days: number[]) =>
  days.map((d) => partitionName(table, ago(d))).sort();
const dayPartitionsRead = async (sql: string, values: unknown[]) =>
  (await tablesRead(pool, sql, values)).filter((name) => /_p\d{8}$|_default$|_legacy$/.test(name));

it("a job's claim reads the deliveries of its own days only", async () => {
  const ids = [...eventsOfDay.get(2)!, eventsOfDay.get(17)![0]!];
  const read = await dayPartitionsRead(DELIVERY_STATEMENTS.CLAIM, [ids, "claim_1", 30_000, 5_000]);
  expect(read).toEqual(daysOf("webhook_deliveries", [2, 17]));
});

it("the bodies of a claim's outbox events are read from their own days only", async () => {
  const ids = [...eventsOfDay.get(2)!, eventsOfDay.get(17)![0]!];
  const { first, last } = idRange(ids);
  const read = await dayPartitionsRead(DELIVERY_STATEMENTS.OUTBOX_EVENTS, [ids, first, last]);
  expect(read).toEqual(daysOf("outbox_events", [2, 17]));
});

it("reads each claimed outbox event by its own key", async () => {
  // A day full enough for its primary key to be the way in.
  const ids = Array.from(
    { length: 5000 },
    () => `evt_${encodeUlid(ago(3).getTime(), crypto.randomBytes(10))}`,
  );
  await pool.query(
    `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload, created_at)
     SELECT id, 'acc_1', 'in_1', 'message.received', 1, '{}', $2 FROM unnest($1::text[]) AS id`,
    [ids, ago(3)],
  );
  await pool.query("ANALYZE outbox_events");
  const claimed = ids.slice(0, 500);
  const { first, last } = idRange(claimed);
  const planned = await plannedReadsOf(pool, DELIVERY_STATEMENTS.OUTBOX_EVENTS, [claimed, first, last]);
  // A probe by the whole list, filtered to one event, read the list once per event.
  expect(planned.filter((r) => r.partition === partitionName("outbox_events", ago(3)))).toEqual([
    expect.objectContaining({ via: "outbox_events_pkey", indexCond: expect.stringContaining("(id = t.id)") }),
  ]);
  expect(planned.map((r) => r.indexCond ?? "").join(" ")).not.toContain("ANY");
});

it("the data of a claim's status events is planned for the weeks of their messages only", async () => {
  const weeksPlanned = async (messageIds: string[]) => {
    const sorted = [...messageIds].sort();
    const values = [
      messageIds.map((_, i) => `evt_${i}`),
      messageIds,
      messageIds.map(() => 2),
      sorted[0],
      sorted[sorted.length - 1],
    ];
    return partitionsPlanned(pool, DELIVERY_STATEMENTS.STATUS_EVENT_DATA, values, MESSAGE_TABLES);
  };
  const weeks = (...weeksAgo: number[]) =>
    MESSAGE_TABLES.flatMap((table) => weeksAgo.map((w) => partitionName(table, ago(w * 7)))).sort();
  const at = (weeksAgo: number) => idBoundAt("msg", now.getTime() - weeksAgo * WEEK);
  expect(await weeksPlanned([at(0), at(0)])).toEqual(weeks(0));
  expect(await weeksPlanned([at(0), at(2)])).toEqual(weeks(2, 1, 0));
});

/** RECORD's values for a first successful attempt of each of these deliveries. */
function successValues(eventIds: string[]): unknown[] {
  const at = new Date();
  const each = (value: unknown) => eventIds.map(() => value);
  const { first, last } = idRange(eventIds);
  return [
    eventIds,
    each("acc_1"),
    each(1),
    each("https://example.com/hook"),
    each(200),
    each(12),
    each(null),
    each(null),
    each(at),
    each("succeeded"),
    each(null),
    first,
    last,
  ];
}

it("the record of a flush's attempts updates the deliveries of their days only", async () => {
  const ids = eventsOfDay.get(5)!;
  const read = await dayPartitionsRead(DELIVERY_STATEMENTS.RECORD, successValues(ids));
  expect(read).toEqual([partitionName("webhook_deliveries", ago(5))]);
});

it("the record of a flush probes each delivery by its own key", async () => {
  // A day full enough for its primary key to be the way in: a flush is a small part of a day.
  const ids = Array.from(
    { length: 50_000 },
    () => `evt_${encodeUlid(ago(4).getTime(), crypto.randomBytes(10))}`,
  );
  await pool.query(
    `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, status, next_attempt_at, created_at)
     SELECT id, 'acc_1', 'msg_1', 'message.delivered', 'pending', now(), $2 FROM unnest($1::text[]) AS id`,
    [ids, ago(4)],
  );
  await pool.query("ANALYZE webhook_deliveries");
  const flushed = ids.filter((_, i) => i % 100 === 0);
  const planned = await plannedReadsOf(pool, DELIVERY_STATEMENTS.RECORD, successValues(flushed));
  const deliveries = planned.filter((read) => read.partition === partitionName("webhook_deliveries", ago(4)));
  expect(deliveries.map((read) => read.via)).toEqual(["webhook_deliveries_pkey"]);
  // By its own key: a probe by the flush's whole list, beside the key, sorted the list once per delivery.
  expect(deliveries[0]!.indexCond).toMatch(/\(event_id = \w+\.event_id\)/);
  expect(planned.map((read) => read.indexCond ?? "").join(" ")).not.toContain("ANY");
});

it("failing deliveries without an attempt touches their days only", async () => {
  const read = await dayPartitionsRead(DELIVERY_STATEMENTS.FAIL_WITHOUT_ATTEMPT, [
    eventsOfDay.get(9)!,
    "endpoint disabled",
  ]);
  expect(read).toEqual([partitionName("webhook_deliveries", ago(9))]);
});
