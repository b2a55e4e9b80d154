import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { withDatabase } from "@sms/testing";
import { listPartitions } from "./partitions";

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

async function apply(name: string): Promise<void> {
  await pool.query(readFileSync(path.join(MIGRATIONS, name, "migration.sql"), "utf8"));
}

it("converts carrier_receipts while receipts keep coming: none lost, no insert held", async () => {
  expect(firstStep).toBeGreaterThan(0);
  await pool.query(
    `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, receipt_key, received_at)
     SELECT 'car_1', 'old-' || n, 'delivered', 'applied', 'old-' || n, now() - make_interval(secs => n)
     FROM generate_series(1, $1::int) AS n`,
    [EXISTING],
  );

  let writing = true;
  let inserted = 0;
  let slowest = 0;
  const writer = async (name: string) => {
    while (writing) {
      const started = performance.now();
      await pool.query(
        `INSERT INTO carrier_receipts (carrier_id, carrier_message_id, state, outcome, receipt_key)
         VALUES ('car_1', $1, 'delivered', 'unmatched', $1)`,
        [`${name}-${inserted}`],
      );
      slowest = Math.max(slowest, performance.now() - started);
      inserted += 1;
    }
  };
  const writers = [writer("a"), writer("b")];
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const name of migrations.slice(firstStep, firstStep + STEPS)) await apply(name);
  await new Promise((resolve) => setTimeout(resolve, 100));
  writing = false;
  await Promise.all(writers);

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
