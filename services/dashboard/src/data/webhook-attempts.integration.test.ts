import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { insertAccount, insertMessage } from "@sms/message-state/test/fixtures";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { findMessage } from "./messages";
import { listAttempts, type AttemptRow } from "./webhook";

// Successes kept on their delivery, failures (and successes recorded before that) as attempt rows:
// the attempt list and the message page show both, as one history (docs/webhooks.md#storage).
describe("webhook attempts in the dashboard (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;
  let accountId: string;
  let messageId: string;
  const URL = "https://hooks.example.com/sms";
  const T0 = new Date("2026-11-24T10:00:00.000Z");
  const T1 = new Date("2026-11-24T10:00:05.000Z");
  const T2 = new Date("2026-11-24T10:00:09.000Z");
  const ev: Record<"legacy" | "retried" | "first" | "failing" | "twin", string> = {
    legacy: newId("evt"),
    retried: newId("evt"),
    first: newId("evt"),
    failing: newId("evt"),
    twin: newId("evt"),
  };

  async function delivery(
    eventId: string,
    sequence: number,
    state: { status: string; attempts: number; success?: { at: Date; latencyMs: number } },
  ) {
    await db.pool.query(
      `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
       VALUES ($1, $2, $3, 'message.sent', $4, '{}')`,
      [eventId, accountId, messageId, sequence],
    );
    const { success } = state;
    await db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, status, attempts,
                                       last_attempt_at, last_status_code, succeeded_at, success_on_row)
       VALUES ($1, $2, $3, 'message.sent', $4::"WebhookDeliveryStatus", $5, $6, $7, $8, $9)`,
      [
        eventId,
        accountId,
        messageId,
        state.status,
        state.attempts,
        success?.at ?? null,
        success ? 200 : null,
        success ? new Date(success.at.getTime() + success.latencyMs) : null,
        success ? true : null,
      ],
    );
  }
  async function attemptRow(eventId: string, attempt: number, statusCode: number, startedAt: Date) {
    await db.pool.query(
      `INSERT INTO webhook_attempts (event_id, account_id, attempt, url, status_code, latency_ms, response_body, started_at)
       VALUES ($1, $2, $3, $4, $5, 11, $6, $7)`,
      [eventId, accountId, attempt, URL, statusCode, statusCode === 200 ? "ok" : "down", startedAt],
    );
  }

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 3 });
    accountId = await insertAccount(db.pool);
    messageId = await insertMessage(db.pool, { accountId });
    // Succeeded before successes moved to the delivery: its success is an attempt row.
    await delivery(ev.legacy, 1, { status: "succeeded", attempts: 1 });
    await attemptRow(ev.legacy, 1, 200, T0);
    // Failed once (a row), then succeeded (on the delivery) at T2.
    await delivery(ev.retried, 2, { status: "succeeded", attempts: 2, success: { at: T2, latencyMs: 42 } });
    await attemptRow(ev.retried, 1, 503, T1);
    // Succeeded at the first attempt, at the same time as the other's failure.
    await delivery(ev.first, 3, { status: "succeeded", attempts: 1, success: { at: T1, latencyMs: 7 } });
    // Still failing; its failure at the same time as the retried one's success.
    await delivery(ev.failing, 4, { status: "pending", attempts: 1 });
    await attemptRow(ev.failing, 1, 500, T2);
    // A second success at T2, so two successes share a start time too.
    await delivery(ev.twin, 5, { status: "succeeded", attempts: 1, success: { at: T2, latencyMs: 3 } });
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  const brief = (a: Pick<AttemptRow, "eventId" | "attempt" | "statusCode">) =>
    `${a.eventId}#${a.attempt}:${a.statusCode}`;
  const expected = () => {
    const [high, low] = [ev.retried, ev.twin].sort().reverse() as [string, string];
    const success = (id: string) => `${id}#${id === ev.retried ? 2 : 1}:200`;
    return [
      success(high),
      success(low),
      `${ev.failing}#1:500`,
      `${ev.first}#1:200`,
      `${ev.retried}#1:503`,
      `${ev.legacy}#1:200`,
    ];
  };

  it("lists failures and successes newest first, successes first at the same time, with their delivery", async () => {
    const page = await listAttempts(db.prisma, accountId, { cursor: undefined, size: 25 });
    expect(page.rows.map(brief)).toEqual(expected());
    expect(page.next).toBeNull();
    const retried = page.rows.find((r) => r.eventId === ev.retried && r.attempt === 2);
    expect(retried).toMatchObject({
      url: null,
      statusCode: 200,
      latencyMs: 42,
      error: null,
      startedAt: T2,
      deliveryStatus: "succeeded",
      messageId,
    });
    expect(page.rows.find((r) => r.eventId === ev.failing)).toMatchObject({
      deliveryStatus: "pending",
      messageId,
    });
  });

  it.each([1, 2, 3, 4])(
    "pages of %i rows walk the whole list once, across both kinds of cursor",
    async (size) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await listAttempts(db.prisma, accountId, { cursor, size });
        expect(page.rows.length).toBeLessThanOrEqual(size);
        seen.push(...page.rows.map(brief));
        if (!page.next) break;
        cursor = page.next;
      }
      expect(seen).toEqual(expected());
    },
  );

  it("shows each delivery's attempts on the message page, the success from the delivery row", async () => {
    const detail = await findMessage(db.prisma, accountId, messageId);
    const byEvent = Object.fromEntries(
      detail!.deliveries.map(({ delivery, attempts }) => [delivery.eventId, attempts.map(brief)]),
    );
    expect(byEvent).toEqual({
      [ev.legacy]: [`${ev.legacy}#1:200`],
      [ev.retried]: [`${ev.retried}#2:200`, `${ev.retried}#1:503`],
      [ev.first]: [`${ev.first}#1:200`],
      [ev.failing]: [`${ev.failing}#1:500`],
      [ev.twin]: [`${ev.twin}#1:200`],
    });
    const success = detail!.deliveries.find((d) => d.delivery.eventId === ev.first)!.attempts[0]!;
    expect(success).toMatchObject({ latencyMs: 7, startedAt: T1, url: null });
  });
});
