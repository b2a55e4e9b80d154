import pg from "pg";
import { partitionName, listPartitions } from "@sms/db";
import { createTestWorld, partitionedSince, type TestWorld } from "@sms/testing";
import { PENDING_RECEIPT_STATEMENTS } from "../src/pending-receipts";

/*
 * carrier_receipts is partitioned by day (docs/decisions.md#partitions): with 30 days kept, a
 * look-up of unmatched receipts that read every day would probe 30 indexes. Each statement
 * bounds the receive time, so PostgreSQL reads only the days an unmatched receipt can be in.
 */
const DAY = 86_400_000;

interface PlanNode {
  "Relation Name"?: string;
  "Subplans Removed"?: number;
  Plans?: PlanNode[];
}
const relationsOf = (node: PlanNode): string[] => [
  ...(node["Relation Name"] ? [node["Relation Name"]] : []),
  ...(node.Plans ?? []).flatMap(relationsOf),
];
/** The partitions left out as the statement starts (a bound PostgreSQL learns only then, such as now()). */
const removedAtStartOf = (node: PlanNode): number =>
  (node["Subplans Removed"] ?? 0) + (node.Plans ?? []).reduce((sum, plan) => sum + removedAtStartOf(plan), 0);

let world: TestWorld;
let pool: pg.Pool;
const now = new Date();
const ago = (days: number) => new Date(now.getTime() - days * DAY);

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(2);
  // A database converted long ago, with 30 past days of receipts.
  await partitionedSince(pool, ["carrier_receipts"], ago(30), now);
});
afterAll(() => world.destroy());

async function planOf(sql: string, values: unknown[]): Promise<PlanNode> {
  const { rows } = await pool.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
    values,
  );
  return rows[0]!["QUERY PLAN"][0]!.Plan;
}

async function daysRead(sql: string, values: unknown[]): Promise<string[]> {
  return relationsOf(await planOf(sql, values)).filter((name) => name.startsWith("carrier_receipts_p"));
}

// The days older than the 3-day window and a day of margin: none of them may be read.
const tooOld = () => Array.from({ length: 25 }, (_, i) => partitionName("carrier_receipts", ago(5 + i)));

const STATEMENTS = [
  ["UNMATCHED_FOR_KEYS", () => [["car_1"], ["abc"], ago(3)]],
  ["SWEEPABLE", () => [1000, ago(3), 500]],
  ["UNMATCHED_BY_ID", () => ["1", ago(1)]],
  ["RECORD_OUTCOMES", () => [["1"], [ago(1)], ["applied"], [null], [null], ago(1)]],
] as const;

it.each(STATEMENTS)("%s reads only the days an unmatched receipt can be in", async (name, values) => {
  const read = await daysRead(PENDING_RECEIPT_STATEMENTS[name], [...values()]);
  expect(read.length).toBeGreaterThan(0);
  expect(read.filter((partition) => tooOld().includes(partition))).toEqual([]);
});

// Each is planned for its run (unnamed): the older days must be left out by the planner, not only
// as the statement starts, or every run plans a scan of every day (several times the planning).
it.each(STATEMENTS)("%s is planned without the older days", async (name, values) => {
  const plan = await planOf(PENDING_RECEIPT_STATEMENTS[name], [...values()]);
  const planned =
    relationsOf(plan).filter((n) => n.startsWith("carrier_receipts_")).length + removedAtStartOf(plan);
  const partitions = (await listPartitions(pool, "carrier_receipts")).length;
  expect(planned).toBeLessThanOrEqual(partitions - tooOld().length);
});
