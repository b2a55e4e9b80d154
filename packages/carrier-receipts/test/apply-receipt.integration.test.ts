import type pg from "pg";
import { applyReceipt, sweepUnmatched } from "../src";
import {
  insertCarrier,
  insertSentMessage,
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

const sentMessage = (carrier: string, ids: string[]) =>
  insertSentMessage(pool, { accountId, carrierId: carrier, carrierMessageIds: ids });

describe("applyReceipt", () => {
  it("delivers a single-segment message on a DELIVRD receipt", async () => {
    const carrier = carrierId();
    const messageId = await sentMessage(carrier, ["a0000001"]);
    const result = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "a0000001",
      state: "delivered",
      errorCode: "000",
    });
    expect(result).toMatchObject({
      outcome: "applied",
      messageId,
      seq: 1,
      transition: { to: "delivered", sequence: 3 },
    });
    const message = await readMessage(pool, messageId);
    expect(message).toMatchObject({
      status: "delivered",
      sequence: 3,
      history: ["queued", "sent", "delivered"],
      outbox: ["message.delivered"],
    });
    expect(message.deliveredAt).toBeInstanceOf(Date);
    expect(message.segments).toEqual([
      expect.objectContaining({ seq: 1, status: "delivered", errorCode: null }),
    ]);
    expect(message.segments[0]!.doneAt).toBeInstanceOf(Date);
    // Its segment is its record: no carrier_receipts row (docs/decisions.md#applied-receipts).
    expect(await readReceipts(pool, carrier)).toEqual([]);
  });

  it("delivers a multi-segment message only once every segment is delivered", async () => {
    const carrier = carrierId();
    const messageId = await sentMessage(carrier, ["m1", "m2", "m3"]);
    for (const id of ["m1", "m3"]) {
      const result = await applyReceipt(pool, {
        carrierId: carrier,
        carrierMessageId: id,
        state: "delivered",
      });
      expect(result.outcome).toBe("applied");
      expect(result.transition).toBeUndefined();
    }
    expect((await readMessage(pool, messageId)).status).toBe("sent");
    const last = await applyReceipt(pool, { carrierId: carrier, carrierMessageId: "m2", state: "delivered" });
    expect(last).toMatchObject({ outcome: "applied", seq: 2, transition: { to: "delivered" } });
    const message = await readMessage(pool, messageId);
    expect(message.status).toBe("delivered");
    expect(message.outbox).toEqual(["message.delivered"]);
    expect(message.segments.map((s) => s.status)).toEqual(["delivered", "delivered", "delivered"]);
  });

  it("fails the message once on the first segment that fails for good, and keeps its credits", async () => {
    const carrier = carrierId();
    const balanceBefore = await balance();
    const messageId = await sentMessage(carrier, ["f1", "f2", "f3"]);
    const first = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "f2",
      state: "undeliverable",
      errorCode: "001",
    });
    expect(first).toMatchObject({ outcome: "applied", seq: 2, transition: { to: "failed" } });
    const later = [
      await applyReceipt(pool, { carrierId: carrier, carrierMessageId: "f1", state: "delivered" }),
      await applyReceipt(pool, {
        carrierId: carrier,
        carrierMessageId: "f3",
        state: "rejected",
        errorCode: "002",
      }),
    ];
    // The segments still record what happened to them; the message does not change again.
    expect(later.map((r) => [r.outcome, r.transition])).toEqual([
      ["applied", undefined],
      ["applied", undefined],
    ]);
    const message = await readMessage(pool, messageId);
    expect(message).toMatchObject({
      status: "failed",
      errorCode: "UNDELIVERABLE",
      history: ["queued", "sent", "failed"],
      outbox: ["message.failed"],
    });
    expect(message.errorMessage).toContain("001");
    expect(message.segments.map((s) => [s.status, s.errorCode])).toEqual([
      ["delivered", null],
      ["failed", "UNDELIVERABLE"],
      ["failed", "REJECTED"],
    ]);
    // Every segment reached the carrier: no refund (docs/messages.md#credits).
    expect(await balance()).toBe(balanceBefore);
  });

  it.each([
    ["rejected", "REJECTED"],
    ["expired", "EXPIRED"],
    ["deleted", "DELETED"],
  ] as const)("maps a %s receipt to error code %s", async (state, code) => {
    const carrier = carrierId();
    const messageId = await sentMessage(carrier, [`${state}-1`]);
    await applyReceipt(pool, { carrierId: carrier, carrierMessageId: `${state}-1`, state, errorCode: "042" });
    const message = await readMessage(pool, messageId);
    expect(message).toMatchObject({ status: "failed", errorCode: code });
    expect(message.errorMessage).toMatch(/carrier error 042/);
  });

  it("keeps a receipt that finds only a final segment unmatched, and the sweep records it ignored, with no second history row", async () => {
    const carrier = carrierId();
    const messageId = await sentMessage(carrier, ["d1"]);
    const first = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "d1",
      state: "delivered",
    });
    const second = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "d1",
      state: "delivered",
    });
    const contrary = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "d1",
      state: "undeliverable",
    });
    // The carrier may have given "d1" again to a submit whose response is not recorded yet.
    expect([first.outcome, second.outcome, contrary.outcome]).toEqual(["applied", "unmatched", "unmatched"]);
    // By the sweep's age its own submit would have been recorded: a duplicate of a final segment.
    await sweepUnmatched(pool, { olderThanMs: 0 });
    const message = await readMessage(pool, messageId);
    expect(message).toMatchObject({
      status: "delivered",
      history: ["queued", "sent", "delivered"],
      outbox: ["message.delivered"],
    });
    expect((await readReceipts(pool, carrier)).map((r) => r.outcome)).toEqual(["ignored", "ignored"]);
  });

  it("records non-final receipts (accepted, enroute, unknown) as ignored", async () => {
    const carrier = carrierId();
    const messageId = await sentMessage(carrier, ["n1"]);
    for (const state of ["enroute", "accepted", "unknown"] as const)
      expect(await applyReceipt(pool, { carrierId: carrier, carrierMessageId: "n1", state })).toMatchObject({
        outcome: "ignored",
        messageId,
      });
    expect(
      await applyReceipt(pool, { carrierId: carrier, carrierMessageId: "nobody", state: "enroute" }),
    ).toMatchObject({ outcome: "ignored" });
    const message = await readMessage(pool, messageId);
    expect(message.status).toBe("sent");
    expect(message.segments[0]!.status).toBe("submitted");
  });

  it("finds a segment whose id the receipt quotes in decimal and the submit response gave in hex, on a carrier whose receipt_id_form says so", async () => {
    const carrier = await insertCarrier(pool, {
      port: 1,
      systemId: "x",
      password: "x",
      receiptIdForm: "decimal",
    });
    const messageId = await sentMessage(carrier, ["1F4A"]);
    const result = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: String(0x1f4a),
      state: "delivered",
    });
    expect(result).toMatchObject({ outcome: "applied", messageId });
  });

  it("never matches a decimal/hex twin on an as_is carrier: receipt 24 leaves segment 18 (0x18 = 24) alone", async () => {
    const carrier = await insertCarrier(pool, { port: 1, systemId: "x", password: "x" });
    const x = await sentMessage(carrier, ["18"]);
    const result = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "24",
      state: "undeliverable",
    });
    expect(result.outcome).toBe("unmatched");
    expect((await readMessage(pool, x)).status).toBe("sent");
    const own = await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "0018",
      state: "delivered",
    });
    expect(own).toMatchObject({ outcome: "applied", messageId: x });
  });

  it("records when the receipt came unless its done date has seconds, and keeps the carrier's done date beside it", async () => {
    const carrier = carrierId();
    const [minute, second] = [await sentMessage(carrier, ["t1"]), await sentMessage(carrier, ["t2"])];
    await pool.query(
      "UPDATE message_segments SET submitted_at = now() - interval '1 hour' WHERE carrier_id = $1",
      [carrier],
    );
    const doneAt = new Date(Date.now() - 10 * 60_000);
    doneAt.setUTCSeconds(0, 0);
    const before = Date.now();
    await applyReceipt(pool, { carrierId: carrier, carrierMessageId: "t1", state: "delivered", doneAt });
    const withSeconds = new Date(doneAt.getTime() + 13_000);
    await applyReceipt(pool, {
      carrierId: carrier,
      carrierMessageId: "t2",
      state: "delivered",
      doneAt: withSeconds,
      doneAtHasSeconds: true,
    });
    const { rows } = await pool.query(
      "SELECT message_id, done_at, carrier_done_at FROM message_segments WHERE message_id = ANY($1::text[])",
      [[minute, second]],
    );
    const of = (id: string) => rows.find((r) => r.message_id === id);
    expect(of(minute).carrier_done_at).toEqual(doneAt);
    expect(of(minute).done_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect((await readMessage(pool, minute)).deliveredAt).toEqual(of(minute).done_at);
    expect(of(second)).toMatchObject({ done_at: withSeconds, carrier_done_at: withSeconds });
  });

  it("keeps a row, with the raw receipt and the process that stored it, only for one that did not apply", async () => {
    const carrier = carrierId();
    await sentMessage(carrier, ["r1"]);
    const receipt = (carrierMessageId: string) => ({
      carrierId: carrier,
      carrierMessageId,
      state: "delivered" as const,
      raw: { stat: "DELIVRD", err: "000" },
      receivedBy: "dlr-host:42",
    });
    // Applied (its segment's columns are the record: docs/decisions.md#applied-receipts), then
    // one for no segment (yet).
    expect(await applyReceipt(pool, receipt("r1"))).toMatchObject({ outcome: "applied", receiptId: null });
    const unmatched = await applyReceipt(pool, receipt("r9"));
    expect(unmatched).toMatchObject({ outcome: "unmatched", receiptId: expect.any(String) });
    const { rows } = await pool.query(
      "SELECT id::text, outcome, raw, received_by FROM carrier_receipts WHERE carrier_id = $1 ORDER BY id",
      [carrier],
    );
    expect(rows).toEqual([
      {
        id: unmatched.receiptId,
        outcome: "unmatched",
        raw: { stat: "DELIVRD", err: "000" },
        received_by: "dlr-host:42",
      },
    ]);
  });
});

async function balance(): Promise<number> {
  const { rows } = await pool.query("SELECT balance FROM accounts WHERE id = $1", [accountId]);
  return Number(rows[0].balance);
}
