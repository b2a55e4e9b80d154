import { createDatabase, type Database } from "@sms/db";
import { insertAccount } from "@sms/message-state/test/fixtures";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { deliveryAttempts } from "@sms/webhooks";
import type { AttemptResult } from "@sms/webhooks";
import { DeliveryStore, type AttemptRecord } from "./delivery-store";

// Where an attempt is kept (docs/webhooks.md#storage): a success on its delivery, a failure as a row.
describe("DeliveryStore.record (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;
  let accountId: string;
  const URL = "https://hooks.example.com/sms";
  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 4 });
    accountId = await insertAccount(db.pool);
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  let serial = 0;
  async function pendingDelivery(): Promise<string> {
    const eventId = `evt_01KYYYYYYYYYYYYYYYYYYYY${String(serial++).padStart(3, "0")}`;
    await db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status)
       VALUES ($1, $2, 'msg_x', 'message.sent', '{}', 'pending')`,
      [eventId, accountId],
    );
    return eventId;
  }
  const at = (iso: string) => new Date(iso);
  function record(eventId: string, attempt: number, result: Partial<AttemptResult>): AttemptRecord {
    const ok = result.outcome === "success";
    return {
      eventId,
      accountId,
      attempt,
      url: URL,
      result: {
        outcome: "failure",
        statusCode: null,
        latencyMs: 0,
        responseBody: null,
        error: null,
        retryAfterMs: null,
        startedAt: new Date(),
        ...result,
      },
      status: ok ? "succeeded" : "pending",
      nextAttemptAt: ok ? null : new Date(Date.now() + 60_000),
    };
  }
  const success = (eventId: string, attempt: number, startedAt: Date, latencyMs = 37) =>
    record(eventId, attempt, {
      outcome: "success",
      statusCode: 200,
      latencyMs,
      responseBody: "ok",
      startedAt,
    });
  const attemptRows = async (eventId: string) =>
    (
      await db.pool.query<{ attempt: number; status_code: number | null; response_body: string | null }>(
        "SELECT attempt, status_code, response_body FROM webhook_attempts WHERE event_id = $1 ORDER BY id",
        [eventId],
      )
    ).rows;
  const delivery = async (eventId: string) =>
    (
      await db.pool.query(
        "SELECT status::text, attempts, last_status_code, last_attempt_at, succeeded_at, success_on_row FROM webhook_deliveries WHERE event_id = $1",
        [eventId],
      )
    ).rows[0];

  it("keeps a first-attempt success on the delivery and writes no attempt row", async () => {
    const store = new DeliveryStore(db.pool);
    const eventId = await pendingDelivery();
    await store.record(success(eventId, 1, at("2026-11-24T10:00:00.120Z"), 37));
    expect(await attemptRows(eventId)).toEqual([]);
    expect(await delivery(eventId)).toEqual({
      status: "succeeded",
      attempts: 1,
      last_status_code: 200,
      last_attempt_at: at("2026-11-24T10:00:00.120Z"),
      succeeded_at: at("2026-11-24T10:00:00.157Z"),
      success_on_row: true,
    });
    // What the readers show: the attempt as it was, without the answer's body.
    expect(await deliveryAttempts(db.prisma, [eventId])).toEqual([
      {
        eventId,
        attempt: 1,
        url: null,
        statusCode: 200,
        latencyMs: 37,
        responseBody: null,
        error: null,
        startedAt: at("2026-11-24T10:00:00.120Z"),
      },
    ]);
  });

  it("keeps a failure as a row with its answer, and the success that follows on the delivery", async () => {
    const store = new DeliveryStore(db.pool);
    const eventId = await pendingDelivery();
    await store.record(
      record(eventId, 1, {
        statusCode: 503,
        latencyMs: 12,
        responseBody: "maintenance",
        startedAt: at("2026-11-24T10:00:00Z"),
      }),
    );
    await store.record(success(eventId, 2, at("2026-11-24T10:00:05Z"), 8));
    expect(await attemptRows(eventId)).toEqual([
      { attempt: 1, status_code: 503, response_body: "maintenance" },
    ]);
    expect(await delivery(eventId)).toMatchObject({ status: "succeeded", attempts: 2, success_on_row: true });
    const shown = await deliveryAttempts(db.prisma, [eventId], accountId);
    expect(shown.map((a) => [a.attempt, a.statusCode, a.latencyMs, a.responseBody])).toEqual([
      [2, 200, 8, null],
      [1, 503, 12, "maintenance"],
    ]);
  });

  it("records a second success of a succeeded delivery as a row and leaves the delivery as it was", async () => {
    const store = new DeliveryStore(db.pool);
    const eventId = await pendingDelivery();
    await store.record(success(eventId, 1, at("2026-11-24T10:00:00Z")));
    const first = await delivery(eventId);
    await store.record(success(eventId, 1, at("2026-11-24T10:00:03Z")));
    // A late failure of a duplicate send does not take the delivery back out of succeeded either.
    await store.record(record(eventId, 2, { statusCode: 500, startedAt: at("2026-11-24T10:00:04Z") }));
    expect(await delivery(eventId)).toEqual(first);
    expect(await attemptRows(eventId)).toEqual([
      { attempt: 1, status_code: 200, response_body: "ok" },
      { attempt: 2, status_code: 500, response_body: null },
    ]);
    expect((await deliveryAttempts(db.prisma, [eventId])).filter((a) => a.statusCode === 200)).toHaveLength(
      2,
    );
  });

  it("keeps one of two successes recorded at once on the delivery and the other as a row", async () => {
    const store = new DeliveryStore(db.pool);
    const eventId = await pendingDelivery();
    await Promise.all([
      store.record(success(eventId, 1, at("2026-11-24T10:00:00Z"))),
      store.record(success(eventId, 1, at("2026-11-24T10:00:01Z"))),
    ]);
    // Which of the two the row keeps depends on which flush locked it first; the other is a row.
    const kept = await delivery(eventId);
    expect(kept).toMatchObject({ status: "succeeded", success_on_row: true });
    expect(await attemptRows(eventId)).toEqual([{ attempt: 1, status_code: 200, response_body: "ok" }]);
    const starts = (await deliveryAttempts(db.prisma, [eventId]))
      .map((a) => a.startedAt.toISOString())
      .sort();
    expect(starts).toEqual(["2026-11-24T10:00:00.000Z", "2026-11-24T10:00:01.000Z"]);
  });
});
