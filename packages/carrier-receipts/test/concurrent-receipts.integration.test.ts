import type pg from "pg";
import { applyReceipt, type ReceiptResult } from "../src";
import { insertSentMessage, nextCarrierId as carrierId, openReceiptsWorld, readMessage } from "./fixtures";

let pool: pg.Pool;
let accountId: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ pool, accountId, close } = await openReceiptsWorld());
});

afterAll(() => close());

const sentMessage = (carrier: string, ids: string[]) =>
  insertSentMessage(pool, { accountId, carrierId: carrier, carrierMessageIds: ids });

describe("concurrent receipts", () => {
  it("delivers a message exactly once when receipts for all its segments arrive at once", async () => {
    for (let round = 0; round < 5; round++) {
      const carrier = carrierId();
      const ids = Array.from({ length: 8 }, (_, i) => `c${round}-${i}`);
      const messageId = await sentMessage(carrier, ids);
      const results: ReceiptResult[] = await Promise.all(
        ids.map((id) => applyReceipt(pool, { carrierId: carrier, carrierMessageId: id, state: "delivered" })),
      );
      expect(results.every((r) => r.outcome === "applied")).toBe(true);
      expect(results.filter((r) => r.transition).length).toBe(1);
      const message = await readMessage(pool, messageId);
      expect(message.status).toBe("delivered");
      expect(message.outbox).toEqual(["message.delivered"]);
      expect(message.history).toEqual(["queued", "sent", "delivered"]);
    }
  });

  it("applies one of several identical receipts racing each other", async () => {
    const carrier = carrierId();
    const messageId = await sentMessage(carrier, ["dup"]);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        applyReceipt(pool, { carrierId: carrier, carrierMessageId: "dup", state: "delivered" }),
      ),
    );
    expect(results.filter((r) => r.outcome === "applied")).toHaveLength(1);
    expect((await readMessage(pool, messageId)).outbox).toEqual(["message.delivered"]);
  });
});
