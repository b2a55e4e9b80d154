import pg from "pg";
import { partitionName } from "@sms/db";
import { idBoundAt } from "@sms/ids";
import { createTestWorld, partitionsPlanned, retainedMessageWeeks, type TestWorld } from "@sms/testing";
import { READ_STATUS_EVENTS } from "../src/relay.sql";

/*
 * The message tables are partitioned by the week of the message id (docs/decisions.md#message-weeks)
 * and keep 13 weeks under the default retention. The relay's read of the status events it claimed is
 * planned for each run: given the smallest and the largest of their message ids, it plans the weeks
 * between them, not every retained week (about 0.3 ms of planning each).
 */
const WEEK = 7 * 86_400_000;
const now = Date.now();
const TABLES = ["messages", "message_events"] as const;

let world: TestWorld;
let pool: pg.Pool;

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(2);
  await retainedMessageWeeks(pool, now);
});
afterAll(() => world.destroy());

async function weeksPlanned(messageIds: string[]): Promise<string[]> {
  const ids = [...messageIds].sort();
  const values = [
    messageIds.map((_, i) => `evt_${i}`),
    messageIds,
    messageIds.map(() => 2),
    messageIds.map(() => new Date()),
    ids[0],
    ids[ids.length - 1],
  ];
  return partitionsPlanned(pool, READ_STATUS_EVENTS, values, TABLES);
}

const weeksOf = (...weeksAgo: number[]) =>
  TABLES.flatMap((table) => weeksAgo.map((w) => partitionName(table, new Date(now - w * WEEK)))).sort();

it("plans the week of its messages only", async () => {
  expect(await weeksPlanned([idBoundAt("msg", now), idBoundAt("msg", now + 1)])).toEqual(weeksOf(0));
});

it("plans the weeks from its oldest message to its newest, not the rest of the retained weeks", async () => {
  const planned = await weeksPlanned([idBoundAt("msg", now - 3 * WEEK), idBoundAt("msg", now)]);
  expect(planned).toEqual(weeksOf(3, 2, 1, 0));
});
