import pg from "pg";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { SuppressionLookup } from "./suppression-lookup";

describe("SuppressionLookup (real PostgreSQL)", () => {
  let world: TestWorld;
  let pool: pg.Pool;
  let statements = 0;

  beforeAll(async () => {
    world = await createTestWorld();
    pool = world.pool(4);
    for (const id of ["acc_lookup_a", "acc_lookup_b"])
      await pool.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'test', 0, now())", [
        id,
      ]);
    await pool.query(
      `INSERT INTO suppressions (account_id, number, source) VALUES
       ('acc_lookup_a', '+14155550101', 'keyword'), ('acc_lookup_b', '+14155550102', 'api')`,
    );
    // Counts the lookups this class sends, through the real pool.
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
      if ((args[0] as { name?: string }).name === "acceptance-suppressed") statements++;
      return query(...args);
    };
  });
  afterAll(async () => {
    await world.destroy();
  });

  it("answers per account: A's number is not suppressed for B", async () => {
    const lookup = new SuppressionLookup(pool);
    const numbers = ["+14155550101", "+14155550102", "+14155550103"];
    expect([...(await lookup.suppressed("acc_lookup_a", numbers))]).toEqual(["+14155550101"]);
    expect([...(await lookup.suppressed("acc_lookup_b", numbers))]).toEqual(["+14155550102"]);
  });

  it("answers 200 concurrent lookups with a few statements, each its own answer", async () => {
    const lookup = new SuppressionLookup(pool);
    statements = 0;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        lookup.suppressed(i % 2 ? "acc_lookup_a" : "acc_lookup_b", ["+14155550101", "+14155550102"]),
      ),
    );
    answers.forEach((answer, i) => expect([...answer]).toEqual([i % 2 ? "+14155550101" : "+14155550102"]));
    // Two go out at once; the 198 that arrive meanwhile share the next statement.
    expect(statements).toBeLessThanOrEqual(3);
  });

  it("makes no statement for no numbers", async () => {
    statements = 0;
    expect((await new SuppressionLookup(pool).suppressed("acc_lookup_a", [])).size).toBe(0);
    expect(statements).toBe(0);
  });
});
