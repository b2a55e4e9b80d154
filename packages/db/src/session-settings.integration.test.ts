import pg from "pg";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { createDatabase, type Database } from "./index";

// The shape of our batch reads: rows of one table by ids, joined to another by key.
const LOOKUP = {
  name: "lookup-by-ids",
  text: "SELECT l.id, d.body FROM lookups l JOIN details d ON d.id = l.id WHERE l.id = ANY($1::text[])",
};

/** The plan `client` would run the named lookup with, for 300 of the ids. */
async function planOf(client: pg.PoolClient): Promise<string> {
  const ids = Array.from({ length: 300 }, (_, i) => `id-${i * 97}`);
  const { rows } = await client.query<{ "QUERY PLAN": string }>(
    `EXPLAIN EXECUTE "${LOOKUP.name}"('{${ids.join(",")}}')`,
  );
  return rows.map((row) => row["QUERY PLAN"]).join("\n");
}

/** Runs the lookup as a named statement while the table is empty, then grows the table to 50,000 rows. */
async function planAfterGrowth(pool: pg.Pool): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query("DROP TABLE IF EXISTS lookups, details");
    await client.query("CREATE TABLE lookups (id text PRIMARY KEY)");
    await client.query("CREATE TABLE details (id text PRIMARY KEY, body text NOT NULL)");
    // Past the fifth execution PostgreSQL may cache a generic plan, made for an empty table.
    for (let i = 0; i < 8; i++) await client.query({ ...LOOKUP, values: [["id-1", "id-2"]] });
    await client.query("INSERT INTO lookups SELECT 'id-' || n FROM generate_series(1, 50000) AS n");
    await client.query("INSERT INTO details SELECT id, repeat('x', 100) FROM lookups");
    return await planOf(client);
  } finally {
    client.release();
  }
}

describe("the session settings of every connection (real PostgreSQL)", () => {
  let world: TestWorld;
  let database: Database;
  let plain: pg.Pool;

  beforeAll(async () => {
    world = await createTestWorld();
    database = createDatabase(world.databaseUrl, { poolSize: 1 });
    plain = new pg.Pool({ connectionString: world.databaseUrl, max: 1 });
    plain.on("error", () => undefined);
  });
  afterAll(async () => {
    await database.close();
    await plain.end();
    await world.destroy();
  });

  it("a batch lookup first run on an empty table probes the index once the table has grown", async () => {
    const plan = await planAfterGrowth(database.pool);
    expect(plan).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it("(the default settings, for contrast, keep scanning the whole table)", async () => {
    expect(await planAfterGrowth(plain)).toMatch(/Seq Scan/);
  });

  it("no statement is compiled by the JIT, however large its estimate", async () => {
    // Estimated far above jit_above_cost, as a batch over every week partition can be.
    const costly = "EXPLAIN SELECT count(*) FROM lookups a JOIN details d ON a.id < d.id";
    const planLines = async (pool: pg.Pool) =>
      (await pool.query<{ "QUERY PLAN": string }>(costly)).rows.map((row) => row["QUERY PLAN"]).join("\n");
    expect(await planLines(database.pool)).not.toMatch(/JIT:/);
    const { rows } = await plain.query<{ available: boolean }>("SELECT pg_jit_available() AS available");
    // (Where the server has the JIT, the defaults compile it: the contrast.)
    if (rows[0]!.available) expect(await planLines(plain)).toMatch(/JIT:/);
  });
});
