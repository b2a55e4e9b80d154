import { createDatabase, type Database } from "@sms/db";
import { insertAccount } from "@sms/message-state/test/fixtures";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { DeliveryStore } from "./delivery-store";

// A delivery the relay wrote already claimed by its job (docs/decisions.md#webhook-claims).
describe("DeliveryStore.claim of rows the relay wrote claimed (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;
  let accountId: string;
  const HOLD_MS = 30_000;
  // WEBHOOK_RECONCILE_STALE_MS 300 s less the hold.
  const HELD_FOR_MS = 270_000;
  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 2 });
    accountId = await insertAccount(db.pool);
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  let serial = 0;
  /** A pending delivery as the relay writes it: claimed, next_attempt_at `writtenAgo` ms ago. */
  async function relayed(claim: string, writtenAgoMs = 0): Promise<string> {
    const eventId = `evt_01KZZZZZZZZZZZZZZZZZZZZ${String(serial++).padStart(3, "0")}`;
    const payload = { event: "message.failed", message_id: "msg_x", timestamp: "t", data: {} };
    await db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status, next_attempt_at, claim)
       VALUES ($1, $2, 'msg_x', 'message.failed', $3, 'pending', now() - $4 * interval '1 millisecond', $5)`,
      [eventId, accountId, payload, writtenAgoMs, claim],
    );
    return eventId;
  }
  const row = async (eventId: string) =>
    (
      await db.pool.query<{ claim: string | null; next_attempt_at: Date; xmin: string }>(
        "SELECT claim, next_attempt_at, xmin::text FROM webhook_deliveries WHERE event_id = $1",
        [eventId],
      )
    ).rows[0]!;

  it("gives its own job the row without writing it, and no job with another claim", async () => {
    const store = new DeliveryStore(db.pool, HELD_FOR_MS);
    const eventId = await relayed("job-a");
    const before = await row(eventId);
    expect(await store.claim([eventId], "job-b", HOLD_MS)).toEqual([]);
    expect((await store.claim([eventId], "job-a", HOLD_MS)).map((d) => d.eventId)).toEqual([eventId]);
    // The same row version: neither claim wrote it.
    expect(await row(eventId)).toEqual(before);
  });

  it("takes the lease as before once the row is older than the window, and then another claim may have it", async () => {
    const store = new DeliveryStore(db.pool, HELD_FOR_MS);
    const eventId = await relayed("job-a", HELD_FOR_MS + 1000);
    expect((await store.claim([eventId], "job-b", HOLD_MS)).map((d) => d.eventId)).toEqual([eventId]);
    const after = await row(eventId);
    expect(after.claim).toBe("job-b");
    expect(after.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + HOLD_MS - 5000);
    // Leased by job-b now: job-a, its first owner, gets nothing.
    expect(await store.claim([eventId], "job-a", HOLD_MS)).toEqual([]);
  });

  it("with a window of zero or less (a reconciler faster than a hold) claims by writing the lease, as before", async () => {
    const store = new DeliveryStore(db.pool, 100 - HOLD_MS);
    const eventId = await relayed("job-a");
    const before = await row(eventId);
    expect((await store.claim([eventId], "job-a", HOLD_MS)).map((d) => d.eventId)).toEqual([eventId]);
    const after = await row(eventId);
    expect(after.xmin).not.toBe(before.xmin);
    expect(after.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + HOLD_MS - 5000);
  });
});
