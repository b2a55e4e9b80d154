import pg from "pg";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { applyReceipts, type ReceiptInput } from "../src";
import { insertAccount, insertMessage, insertSegment } from "./fixtures";

let world: TestWorld;
let pool: pg.Pool;

beforeAll(async () => {
  world = await createTestWorld();
  pool = new pg.Pool({ connectionString: world.databaseUrl, max: 6 });
  pool.on("error", () => undefined);
});
afterAll(async () => {
  await pool.end();
  await world.destroy();
});

const delivered = (id: string): ReceiptInput => ({
  carrierId: "sim",
  carrierMessageId: id,
  state: "delivered",
});

describe("applyReceipts (group commit)", () => {
  it("applies a batch in one transaction and returns each receipt's outcome in order", async () => {
    const accountId = await insertAccount(pool);
    const a = await insertMessage(pool, { accountId });
    await insertSegment(pool, { messageId: a, seq: 1, carrierId: "sim", carrierMessageId: "b-1" });
    const results = await applyReceipts(pool, [delivered("b-1"), delivered("b-1"), delivered("nobody")]);
    expect(results.map((r) => r.outcome)).toEqual(["applied", "ignored", "unmatched"]);
    const { rows } = await pool.query("SELECT status FROM messages WHERE id = $1", [a]);
    expect(rows[0].status).toBe("delivered");
  });

  it("never deadlocks two batches over the segments of the same messages in opposite orders", async () => {
    const accountId = await insertAccount(pool);
    const messages: string[] = [];
    for (let m = 0; m < 10; m++) {
      const id = await insertMessage(pool, { accountId, segments: 2 });
      await insertSegment(pool, { messageId: id, seq: 1, carrierId: "sim", carrierMessageId: `x-${m}-1` });
      await insertSegment(pool, { messageId: id, seq: 2, carrierId: "sim", carrierMessageId: `x-${m}-2` });
      messages.push(id);
    }
    const first = messages.map((_, m) => delivered(`x-${m}-1`));
    const second = messages.map((_, m) => delivered(`x-${m}-2`)).reverse();
    await Promise.all([applyReceipts(pool, first), applyReceipts(pool, second)]);
    const { rows } = await pool.query<{ status: string; n: string }>(
      `SELECT m.status, (SELECT count(*) FROM outbox_events o WHERE o.message_id = m.id AND o.type = 'message.delivered') AS n
       FROM messages m WHERE m.id = ANY($1::text[])`,
      [messages],
    );
    expect(rows.every((row) => row.status === "delivered" && row.n === "1")).toBe(true);
  });
});
