import type pg from "pg";
import { waitFor } from "@sms/testing";
import {
  applyReceipt,
  lockCarrierMessageId,
  matchPendingReceipts,
  receiptKeyOf,
  sweepUnmatched,
} from "../src";
import {
  insertMessage,
  insertSegment,
  nextCarrierId as carrierId,
  openReceiptsWorld,
  readMessage,
  readReceipts,
} from "./fixtures";

let pool: pg.Pool;
let accountId: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ pool, accountId, close } = await openReceiptsWorld());
});

afterAll(() => close());

/** What the dispatcher does with a submit_sm_resp (services/dispatcher recordSubmitted). */
async function recordSubmitted(messageId: string, seq: number, carrier: string, carrierMessageId: string) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await lockCarrierMessageId(client, carrier, receiptKeyOf(carrierMessageId)!);
    await client.query(
      `UPDATE message_segments SET status = 'submitted', carrier_message_id = $3, submitted_at = now()
       WHERE message_id = $1 AND seq = $2`,
      [messageId, seq, carrierMessageId],
    );
    const matched = await matchPendingReceipts(client, {
      carrierId: carrier,
      receiptKey: receiptKeyOf(carrierMessageId)!,
    });
    await client.query("COMMIT");
    return matched;
  } finally {
    client.release();
  }
}

describe("receipts that beat the submit response", () => {
  it("is recorded unmatched, then applied by matchPendingReceipts when the dispatcher records the id", async () => {
    const carrier = carrierId();
    const messageId = await insertMessage(pool, { accountId, status: "queued" });
    await insertSegment(pool, { messageId, seq: 1, carrierId: carrier });
    const early = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "e1",
      state: "delivered",
    });
    expect(early).toEqual({ outcome: "unmatched", receiptId: expect.any(String) });
    expect((await readMessage(pool, messageId)).status).toBe("queued");

    const matched = await recordSubmitted(messageId, 1, carrier, "e1");
    expect(matched).toEqual([
      expect.objectContaining({
        outcome: "applied",
        messageId,
        seq: 1,
        transition: { to: "delivered", sequence: 2 },
      }),
    ]);
    const message = await readMessage(pool, messageId);
    expect(message).toMatchObject({
      status: "delivered",
      history: ["queued", "delivered"],
      outbox: ["message.delivered"],
    });
    expect(await readReceipts(pool, carrier)).toEqual([
      { carrierMessageId: "e1", state: "delivered", outcome: "applied", messageId, seq: 1 },
    ]);
  });

  it("applies the first of two early duplicates; the second waits for the sweep, which ignores it", async () => {
    const carrier = carrierId();
    const messageId = await insertMessage(pool, { accountId, status: "queued" });
    await insertSegment(pool, { messageId, seq: 1, carrierId: carrier });
    await applyReceipt(pool, { carrierId: carrier, carrierMessageId: "e2", state: "delivered" });
    await applyReceipt(pool, { carrierId: carrier, carrierMessageId: "e2", state: "delivered" });
    const matched = await recordSubmitted(messageId, 1, carrier, "e2");
    expect(matched.map((r) => r.outcome)).toEqual(["applied"]);
    await sweepUnmatched(pool, { olderThanMs: 0 });
    expect((await readReceipts(pool, carrier)).map((r) => r.outcome)).toEqual(["applied", "ignored"]);
    expect((await readMessage(pool, messageId)).outbox).toEqual(["message.delivered"]);
  });

  it("waits on the dispatcher's lock while it records the id, then applies", async () => {
    const carrier = carrierId();
    const messageId = await insertMessage(pool, { accountId, status: "queued" });
    await insertSegment(pool, { messageId, seq: 1, carrierId: carrier });
    const dispatcher = await pool.connect();
    try {
      await dispatcher.query("BEGIN");
      await lockCarrierMessageId(dispatcher, carrier, "race1");
      const receipt = applyReceipt(pool, {
        carrierId: carrier,
        carrierMessageId: "race1",
        state: "delivered",
      });
      await waitFor(
        async () =>
          // This database's waiters only: pg_locks is server-wide.
          (
            await pool.query(
              `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            )
          ).rowCount,
        { what: "the receipt to wait on the advisory lock" },
      );
      await dispatcher.query(
        "UPDATE message_segments SET status = 'submitted', carrier_message_id = 'race1', submitted_at = now() WHERE message_id = $1",
        [messageId],
      );
      expect(await matchPendingReceipts(dispatcher, { carrierId: carrier, receiptKey: "race1" })).toEqual([]);
      await dispatcher.query("COMMIT");
      expect(await receipt).toMatchObject({ outcome: "applied", messageId, transition: { to: "delivered" } });
    } finally {
      dispatcher.release();
    }
  });

  it("sweepUnmatched applies what matchPendingReceipts missed, and leaves young receipts alone", async () => {
    const carrier = carrierId();
    const messageId = await insertMessage(pool, { accountId });
    await insertSegment(pool, { messageId, seq: 1, carrierId: carrier });
    await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "s1",
      state: "expired",
      errorCode: "003",
    });
    await applyReceipt(pool, { carrierId: carrier, carrierMessageId: "s-never", state: "delivered" });
    // A dispatcher that recorded the id without matching (an older build, a crash between).
    await pool.query(
      "UPDATE message_segments SET status = 'submitted', carrier_message_id = 's1' WHERE message_id = $1",
      [messageId],
    );
    expect(await sweepUnmatched(pool, { olderThanMs: 3_600_000 })).toEqual({
      examined: 0,
      applied: 0,
      ignored: 0,
    });
    const swept = await sweepUnmatched(pool, { olderThanMs: 0 });
    expect(swept.applied).toBeGreaterThanOrEqual(1);
    expect(await readMessage(pool, messageId)).toMatchObject({ status: "failed", errorCode: "EXPIRED" });
    expect((await readReceipts(pool, carrier)).map((r) => [r.carrierMessageId, r.outcome])).toEqual([
      ["s1", "applied"],
      ["s-never", "unmatched"],
    ]);
  });
});
