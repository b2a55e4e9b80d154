import pg from "pg";
import { encodeGsm7 } from "@sms/sms-encoding";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { createInboundIntake, type InboundPiece } from "../src";
import { insertAccount } from "./fixtures";

let world: TestWorld;
let pool: pg.Pool;
let accountId: string;

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(10);
  accountId = await insertAccount(pool);
  await pool.query("INSERT INTO inbound_numbers (number, account_id) VALUES ('+14155557001', $1)", [
    accountId,
  ]);
});
afterAll(async () => {
  await world.destroy();
});

const whole = (to: string, text: string, from = "+447700900123"): InboundPiece => ({
  from,
  to,
  dataCoding: 0,
  payload: Buffer.from(encodeGsm7(text)),
  part: null,
  flags: [],
});

/** Counts the transactions the server committed in this database (pg_stat is per backend until flushed). */
async function commits(): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    "SELECT pg_stat_force_next_flush(), (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS n",
  );
  return Number(rows[0]!.n);
}

describe("inbound intake", () => {
  it("stores whole messages arriving together in a few transactions, each once, with its event and account", async () => {
    const intake = createInboundIntake(pool);
    const before = await commits();
    const results = await Promise.all(
      Array.from({ length: 600 }, (_, i) =>
        intake.store("car_a", whole(i % 3 === 0 ? "+14155557999" : "+14155557001", `burst ${i}`)),
      ),
    );
    const used = (await commits()) - before;
    expect(results.filter((r) => r.outcome === "assigned")).toHaveLength(400);
    expect(results.filter((r) => r.outcome === "unassigned")).toHaveLength(200);
    expect(new Set(results.map((r) => r.message!.id)).size).toBe(600);
    const { rows } = await pool.query<{ text: string; account_id: string | null; events: string }>(
      `SELECT m.text, m.account_id, (SELECT count(*) FROM outbox_events e WHERE e.message_id = m.id) AS events
         FROM inbound_messages m WHERE m.text LIKE 'burst %'`,
    );
    expect(rows).toHaveLength(600);
    for (const row of rows) {
      const i = Number(row.text.split(" ")[1]);
      expect(row.account_id).toBe(i % 3 === 0 ? null : accountId);
      expect(Number(row.events)).toBe(i % 3 === 0 ? 0 : 1);
    }
    // 600 at one transaction each would be 600; batches of at most 200 need 3, a few more for the reads.
    expect(used).toBeLessThan(30);
  });

  it("hands back only the message that cannot be stored; its batch neighbours are stored", async () => {
    const intake = createInboundIntake(pool, async (_client, message) => {
      if (message.text === "poison") throw new Error("the hook refuses it");
    });
    const texts = ["fine 1", "poison", "fine 2", "fine 3"];
    const results = await Promise.allSettled(
      texts.map((text) => intake.store("car_a", whole("+14155557001", text))),
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const { rows } = await pool.query<{ text: string }>(
      "SELECT text FROM inbound_messages WHERE text IN ('fine 1', 'poison', 'fine 2', 'fine 3') ORDER BY text",
    );
    expect(rows.map((row) => row.text)).toEqual(["fine 1", "fine 2", "fine 3"]);
  });

  it("queues the deliver_sm parts of a burst for the binding account only, in order, in a few transactions", async () => {
    const binder = await insertAccount(pool);
    await pool.query("INSERT INTO inbound_numbers (number, account_id) VALUES ('+14155557002', $1)", [
      binder,
    ]);
    await pool.query(
      "INSERT INTO smpp_credentials (system_id, account_id, password_hash) VALUES ($1, $2, 'unused')",
      [`sys_${binder.slice(-8)}`, binder],
    );
    const long = (i: number) => `forward ${i} `.padEnd(200, "x");
    const texts = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? long(i) : `forward ${i}`));
    const intake = createInboundIntake(pool);
    const before = await commits();
    await Promise.all(
      texts.map((text, i) =>
        intake.store("car_a", whole(i % 3 === 2 ? "+14155557001" : "+14155557002", text)),
      ),
    );
    expect((await commits()) - before).toBeLessThan(20);
    const { rows } = await pool.query<{ text: string; account_id: string; parts: number[]; esm: number[] }>(
      `SELECT m.text, q.account_id, array_agg(q.part_seq ORDER BY q.part_seq) AS parts,
              array_agg(q.esm_class ORDER BY q.part_seq) AS esm
         FROM inbound_messages m JOIN smpp_inbound q ON q.inbound_id = m.id
        WHERE m.text LIKE 'forward %' GROUP BY m.text, q.account_id`,
    );
    expect(rows).toHaveLength(200);
    for (const row of rows) {
      const i = Number(row.text.split(" ")[1]);
      expect(i % 3).not.toBe(2);
      expect(row.account_id).toBe(binder);
      expect(row.parts).toEqual(i % 3 === 0 ? [1, 2] : [1]);
      expect(row.esm).toEqual(i % 3 === 0 ? [0x40, 0x40] : [0]);
    }
  });
});
