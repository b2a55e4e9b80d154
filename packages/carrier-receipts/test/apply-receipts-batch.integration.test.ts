import pg from "pg";
import { createTestWorld, type TestWorld } from "@sms/testing";
import {
  applyReceipt,
  applyReceipts,
  lockCarrierMessageId,
  matchPendingReceiptsFor,
  type ReceiptInput,
  type ReceiptResult,
} from "../src";
import { insertAccount, insertMessage, insertSegment, readMessage, readReceipts } from "./fixtures";

let world: TestWorld;
let pool: pg.Pool;

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(6);
});
afterAll(async () => {
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
    // The second b-1 finds its segment final: unmatched until the sweep (a later submit may reuse b-1).
    expect(results.map((r) => r.outcome)).toEqual(["applied", "unmatched", "unmatched"]);
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
      `SELECT m.status, (SELECT count(*) FROM events o WHERE o.message_id = m.id AND o.type = 'message.delivered') AS n
       FROM messages m WHERE m.id = ANY($1::text[])`,
      [messages],
    );
    expect(rows.every((row) => row.status === "delivered" && row.n === "1")).toBe(true);
  });
});

describe("applyReceipts: a mixed batch, set-based", () => {
  const on = (carrierId: string, id: string, state: ReceiptInput["state"] = "delivered"): ReceiptInput => ({
    carrierId,
    carrierMessageId: id,
    state,
    errorCode: state === "delivered" ? "000" : "001",
  });

  /** The messages of one scenario, on their own carrier: single, multi-part, failing multi-part, partial, early. */
  async function scenario(carrierId: string) {
    const accountId = await insertAccount(pool);
    const single = await insertMessage(pool, { accountId });
    await insertSegment(pool, { messageId: single, seq: 1, carrierId, carrierMessageId: "s-1" });
    const multi = await insertMessage(pool, { accountId, segments: 3 });
    for (const seq of [1, 2, 3])
      await insertSegment(pool, { messageId: multi, seq, carrierId, carrierMessageId: `m-${seq}` });
    const failing = await insertMessage(pool, { accountId, segments: 2 });
    for (const seq of [1, 2])
      await insertSegment(pool, { messageId: failing, seq, carrierId, carrierMessageId: `f-${seq}` });
    const partial = await insertMessage(pool, { accountId, segments: 2 });
    for (const seq of [1, 2])
      await insertSegment(pool, { messageId: partial, seq, carrierId, carrierMessageId: `p-${seq}` });
    const early = await insertMessage(pool, { accountId, status: "queued" });
    await insertSegment(pool, { messageId: early, seq: 1, carrierId });
    const receipts = [
      on(carrierId, "m-2"),
      on(carrierId, "s-1"),
      on(carrierId, "f-1"),
      on(carrierId, "s-1"), // duplicate
      on(carrierId, "unknown-1"), // no segment has it
      on(carrierId, "m-1", "enroute"), // not final
      on(carrierId, "m-3"),
      on(carrierId, "f-2", "undeliverable"),
      on(carrierId, "s-1", "undeliverable"), // contrary duplicate
      on(carrierId, "e-1"), // before its submit response
      on(carrierId, "p-1"),
      on(carrierId, "m-1"),
    ];
    return { ids: { single, multi, failing, partial, early }, receipts };
  }

  async function outcome(messageIds: Record<string, string>) {
    const out: Record<string, unknown> = {};
    for (const [name, id] of Object.entries(messageIds)) {
      const message = await readMessage(pool, id);
      out[name] = {
        status: message.status,
        errorCode: message.errorCode,
        history: message.history,
        outbox: message.outbox,
        segments: message.segments.map((s) => [s.seq, s.status, s.errorCode]),
      };
    }
    return out;
  }

  it("gives each receipt the outcome it has when applied one by one, in one transaction", async () => {
    const batched = await scenario("mix-batch");
    const batchResults = await applyReceipts(pool, batched.receipts);
    const sequential = await scenario("mix-one");
    const oneByOne = [];
    for (const receipt of sequential.receipts) oneByOne.push(await applyReceipt(pool, receipt));

    const shape = (results: ReceiptResult[], ids: Record<string, string>) => {
      const names = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
      return results.map((r) => [r.outcome, r.messageId && names.get(r.messageId), r.seq, r.transition?.to]);
    };
    expect(shape(batchResults, batched.ids)).toEqual(shape(oneByOne, sequential.ids));
    expect(shape(batchResults, batched.ids)).toEqual([
      ["applied", "multi", 2, undefined],
      ["applied", "single", 1, "delivered"],
      ["applied", "failing", 1, undefined],
      ["unmatched", undefined, undefined, undefined], // s-1 again: unmatched until the sweep
      ["unmatched", undefined, undefined, undefined],
      ["ignored", "multi", 1, undefined],
      ["applied", "multi", 3, undefined],
      ["applied", "failing", 2, "failed"],
      ["unmatched", undefined, undefined, undefined], // s-1 again: unmatched until the sweep
      ["unmatched", undefined, undefined, undefined],
      ["applied", "partial", 1, undefined],
      ["applied", "multi", 1, "delivered"],
    ]);
    expect(await outcome(batched.ids)).toEqual(await outcome(sequential.ids));
    expect(await outcome(batched.ids)).toMatchObject({
      single: {
        status: "delivered",
        history: ["queued", "sent", "delivered"],
        outbox: ["message.delivered"],
      },
      multi: { status: "delivered", outbox: ["message.delivered"] },
      failing: { status: "failed", errorCode: "UNDELIVERABLE", outbox: ["message.failed"] },
      partial: {
        status: "sent",
        segments: [
          [1, "delivered", null],
          [2, "submitted", null],
        ],
      },
      early: { status: "queued" },
    });
    // A row for each receipt that did not apply, under the id its result names; none for an
    // applied one, whose record is its segment (docs/decisions.md#applied-receipts).
    const { rows } = await pool.query(
      "SELECT id::text, outcome FROM carrier_receipts WHERE carrier_id = 'mix-batch' ORDER BY id",
    );
    expect(rows).toEqual(
      batchResults
        .filter((r) => r.outcome !== "applied")
        .map((r) => ({ id: r.receiptId, outcome: r.outcome })),
    );
    expect(batchResults.filter((r) => r.outcome === "applied").map((r) => r.receiptId)).toEqual(
      Array(7).fill(null),
    );
  });

  it("applies the early receipts of many segments when the dispatcher records their ids together", async () => {
    const accountId = await insertAccount(pool);
    const carrierId = "mix-early";
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await insertMessage(pool, { accountId, status: "queued" });
      await insertSegment(pool, { messageId: id, seq: 1, carrierId });
      ids.push(id);
    }
    // Early receipts, one of them twice; the last segment gets none.
    const early = await applyReceipts(
      pool,
      [0, 1, 2, 3, 3].map((i) => on(carrierId, `ee-${i}`)),
    );
    expect(early.map((r) => r.outcome)).toEqual(Array(5).fill("unmatched"));
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const records = ids.map((messageId, i) => ({ messageId, carrierMessageId: `ee-${i}` }));
      for (const record of [...records].sort((a, b) => (a.carrierMessageId < b.carrierMessageId ? -1 : 1)))
        await lockCarrierMessageId(client, carrierId, record.carrierMessageId);
      for (const record of records)
        await client.query(
          "UPDATE message_segments SET status = 'submitted', carrier_message_id = $2, submitted_at = now() WHERE message_id = $1",
          [record.messageId, record.carrierMessageId],
        );
      const matched = await matchPendingReceiptsFor(
        client,
        records.map((r) => ({ carrierId, receiptKey: r.carrierMessageId })),
      );
      await client.query("COMMIT");
      // ee-3's second receipt finds its segment taken by the first: unmatched until the sweep.
      expect(matched.map((r) => [r.outcome, r.transition?.to])).toEqual([
        ["applied", "delivered"],
        ["applied", "delivered"],
        ["applied", "delivered"],
        ["applied", "delivered"],
      ]);
    } finally {
      client.release();
    }
    const statuses = await Promise.all(ids.map(async (id) => (await readMessage(pool, id)).status));
    expect(statuses).toEqual(["delivered", "delivered", "delivered", "delivered", "queued"]);
    expect((await readReceipts(pool, carrierId)).map((r) => r.outcome)).toEqual([
      "applied",
      "applied",
      "applied",
      "applied",
      "unmatched",
    ]);
  });
});
