import { newId } from "@sms/ids";
import { createTestWorld, statsPool, type TestWorld } from "@sms/testing";
import { applyReceipts, sweepUnmatched } from "../src";
import { insertAccount } from "./fixtures";

// What a receipt writes to the indexes (migrations 20261122100000 and 20261122100200).
describe("receipts' index writes (real PostgreSQL)", () => {
  let world: TestWorld;
  let stats: ReturnType<typeof statsPool>;
  beforeAll(async () => {
    world = await createTestWorld();
    stats = statsPool(world.databaseUrl);
  });
  afterAll(async () => {
    await stats?.pool.end();
    await world?.destroy();
  });

  it("delivers segments written on full pages mostly as HOT updates (message_segments keeps a fifth of each page free)", async () => {
    const accountId = await insertAccount(stats.pool);
    const count = 600;
    // As the dispatcher leaves them: one submitted segment per sent message, pages filled in order.
    await stats.pool.query(
      `WITH t AS (
         SELECT id, n FROM unnest($2::text[]) WITH ORDINALITY AS t(id, n)
       ), m AS (
         INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                               status, status_sequence, sent_at)
         SELECT id, $1, '+447700900123', 'Acme', 'hello', 'GSM7', 1, 1, 'sent', 2, now() FROM t
       )
       INSERT INTO message_segments (message_id, seq, status, attempts, carrier_id, carrier_message_id, submitted_at)
       SELECT id, 1, 'submitted', 1, 'sim', 'hot-' || n, now() FROM t`,
      [accountId, Array.from({ length: count }, () => newId("msg"))],
    );
    const before = await stats.tableUpdates("message_segments");
    const results = await applyReceipts(
      stats.pool,
      Array.from({ length: count }, (_, i) => ({
        carrierId: "sim",
        carrierMessageId: `hot-${i + 1}`,
        state: "delivered" as const,
      })),
    );
    expect(results.every((result) => result.outcome === "applied")).toBe(true);
    const after = await stats.tableUpdates("message_segments");
    const updated = after.updated - before.updated;
    expect(updated).toBe(count);
    // All in one transaction, so nothing on the pages is dead yet: HOT only as far as the
    // free fifth of each page goes (about a quarter of the rows), none at fillfactor 100.
    expect((after.hot - before.hot) / updated).toBeGreaterThan(0.15);
  });

  it("sweeps unmatched receipts through the partial index that holds them alone", async () => {
    const [unmatched] = await applyReceipts(stats.pool, [
      { carrierId: "sim", carrierMessageId: "nobody-knows", state: "delivered" },
    ]);
    expect(unmatched!.outcome).toBe("unmatched");
    await stats.pool.query(
      "UPDATE carrier_receipts SET received_at = now() - interval '1 minute' WHERE id = $1",
      [unmatched!.receiptId],
    );
    const index = "carrier_receipts_unmatched_received_at_idx";
    const before = await stats.indexScans(index);
    const swept = await sweepUnmatched(stats.pool, { olderThanMs: 1000 });
    expect(swept.examined).toBe(1);
    expect(await stats.indexScans(index)).toBeGreaterThan(before);
  });
});
