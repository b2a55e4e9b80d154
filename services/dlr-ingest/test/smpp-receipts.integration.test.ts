import pg from "pg";
import { readMessage, readReceipts } from "@sms/carrier-receipts/test/fixtures";
import { waitFor, withDatabase } from "@sms/testing";
import { startHarness, type Harness } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe("receipts over the receiver bind", () => {
  it.each([
    ["+447700901234", "delivered", null],
    ["+447700900001", "failed", "UNDELIVERABLE"],
    ["+447700900002", "failed", "REJECTED"],
    ["+447700900003", "failed", "EXPIRED"],
  ])("a receipt for %s ends the message %s (%s)", async (to, status, errorCode) => {
    const { messageId, carrierMessageId } = await h.send(to);
    await h.waitForStatus(messageId, status);
    const message = await readMessage(h.pool, messageId);
    expect(message).toMatchObject({ status, errorCode, outbox: [`message.${status}`] });
    expect(message.history).toEqual(["queued", "sent", status]);
    if (errorCode) expect(message.errorMessage).toMatch(/carrier error 00[123]/);
    // Applied, it is its segment's columns, not a carrier_receipts row (docs/decisions.md#applied-receipts).
    expect(message.segments).toEqual([{ seq: 1, status, errorCode, doneAt: expect.any(Date) }]);
    const receipts = (await readReceipts(h.pool, h.carrier.id)).filter(
      (r) => r.carrierMessageId === carrierMessageId,
    );
    expect(receipts).toEqual([]);
  });

  it("applies a receipt sent before the submit response once the dispatcher records the id", async () => {
    // …0008: the simulator delivers the receipt, and waits for our ESME_ROK, before it answers the submit.
    const { messageId, carrierMessageId } = await h.send("+447700900008", { record: false });
    const early = (await readReceipts(h.pool, h.carrier.id)).filter(
      (r) => r.carrierMessageId === carrierMessageId,
    );
    expect(early).toEqual([expect.objectContaining({ outcome: "unmatched", messageId: null })]);
    expect((await readMessage(h.pool, messageId)).status).toBe("sent");

    const matched = await h.recordSubmitted(messageId, carrierMessageId);
    expect(matched).toEqual([
      expect.objectContaining({
        outcome: "applied",
        messageId,
        transition: expect.objectContaining({ to: "delivered" }),
      }),
    ]);
    expect(await readMessage(h.pool, messageId)).toMatchObject({
      status: "delivered",
      outbox: ["message.delivered"],
    });
  });

  it("makes one transition of a receipt the carrier sends twice", async () => {
    // …0007: DELIVRD sent twice.
    const { messageId, carrierMessageId } = await h.send("+447700900007");
    await waitFor(() => h.simulator.findMessage(carrierMessageId)?.receiptsSent === 2, {
      what: "both receipts acknowledged",
    });
    const message = await readMessage(h.pool, messageId);
    expect(message).toMatchObject({
      status: "delivered",
      history: ["queued", "sent", "delivered"],
      outbox: ["message.delivered"],
    });
    const outcomes = (await readReceipts(h.pool, h.carrier.id))
      .filter((r) => r.carrierMessageId === carrierMessageId)
      .map((r) => r.outcome);
    // The first applied (its segment's columns); the second finds its segment final: a row,
    // unmatched until the sweep calls it a duplicate.
    expect(outcomes).toEqual(["unmatched"]);
  });

  it("answers non-OK while the database is down, and applies the carrier's redelivery once it is back", async () => {
    const admin = new pg.Client({ connectionString: withDatabase(h.world.databaseUrl, "postgres") });
    await admin.connect();
    const database = new URL(h.world.databaseUrl).pathname.slice(1);
    // The test keeps one connection of its own through the outage.
    const ours = await h.pool.connect();
    try {
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'dlr-ingest'",
        [database],
      );
      const before = h.simulator.stats().receipts;
      const { messageId, carrierMessageId } = await h.send("+447700901235", { db: ours });
      // The receipt reaches dlr-ingest, which cannot store it: the simulator sees non-OK answers and keeps it.
      await waitFor(() => h.simulator.stats().receipts.sent - before.sent >= 2, {
        what: "two refused deliveries",
      });
      expect(h.simulator.stats().receipts.acknowledged).toBe(before.acknowledged);
      expect(h.simulator.findMessage(carrierMessageId)?.receiptsSent).toBe(0);
      expect(
        (await ours.query("SELECT status FROM messages WHERE id = $1", [messageId])).rows[0].status,
      ).toBe("sent");

      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
      await h.waitForStatus(messageId, "delivered");
      await waitFor(() => h.simulator.findMessage(carrierMessageId)?.receiptsSent === 1, {
        what: "the receipt acknowledged",
      });
      expect((await readMessage(h.pool, messageId)).segments).toEqual([
        { seq: 1, status: "delivered", errorCode: null, doneAt: expect.any(Date) },
      ]);
    } finally {
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
      await admin.end();
      ours.release();
    }
  });
});
