import pg from "pg";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { migrationAdapter } from "./migrate-adapter";

// The adapter `prisma migrate deploy` applies our migrations through (prisma.config.ts).
describe("migrationAdapter (real PostgreSQL)", () => {
  let world: TestWorld;
  let pool: pg.Pool;
  let connection: Awaited<ReturnType<ReturnType<typeof migrationAdapter>["connect"]>>;
  beforeAll(async () => {
    world = await createTestWorld();
    pool = world.pool(2);
    connection = await migrationAdapter(world.databaseUrl).connect();
  });
  afterAll(async () => {
    await connection?.dispose();
    await world?.destroy();
  });
  const exists = async (table: string) =>
    (await pool.query<{ found: string | null }>("SELECT to_regclass($1)::text AS found", [table])).rows[0]!
      .found !== null;

  it("applies a migration entirely or not at all: a failing statement leaves the earlier ones undone", async () => {
    const migration = [
      "CREATE TABLE half_applied (id int)",
      "INSERT INTO half_applied VALUES (1)",
      "SELECT 1 / 0",
    ].join(";\n");
    await expect(connection.executeScript(migration)).rejects.toThrow();
    expect(await exists("half_applied")).toBe(false);
  });

  it("takes semicolons in comments and in function bodies as PostgreSQL does", async () => {
    await connection.executeScript(`
      -- a comment; with a semicolon
      CREATE TABLE whole_script (id int);
      CREATE FUNCTION whole_script_count() RETURNS bigint LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO whole_script VALUES (1);
        RETURN (SELECT count(*) FROM whole_script);
      END $$;
    `);
    const { rows } = await pool.query<{ n: string }>("SELECT whole_script_count() AS n");
    expect(rows[0]!.n).toBe("1");
  });

  it("runs a migration of one statement outside a transaction block, as CREATE INDEX CONCURRENTLY needs", async () => {
    await pool.query("CREATE TABLE concurrently_indexed (id int)");
    await connection.executeScript(
      "-- alone in its migration\nCREATE INDEX CONCURRENTLY concurrently_indexed_id ON concurrently_indexed (id);",
    );
    expect(await exists("concurrently_indexed_id")).toBe(true);
  });
});
