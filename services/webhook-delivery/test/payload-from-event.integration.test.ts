import { waitFor } from "@sms/testing";
import { renderWebhookBody, toWebhookEvent, type OutboxRow } from "@sms/webhooks";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

// A delivery holds no copy of its body: the sender builds it from the outbox_events row of the
// same id, on the first attempt and on every retry (docs/webhooks.md#storage).
let w: WebhookWorld;
const receivers: Receiver[] = [];

beforeAll(async () => {
  w = await startWebhookWorld();
  // The reconciler finds a delivery written straight into the table within a test.
  await w.start({ WEBHOOK_RECONCILE_STALE_MS: "100", WEBHOOK_RECONCILE_INTERVAL_MS: "200" });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await w.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function eventRow(eventId: string): Promise<OutboxRow> {
  const { rows } = await w.db.pool.query<OutboxRow>(
    `SELECT id, account_id, message_id, type, sequence, created_at, payload FROM events AS o WHERE id = $1`,
    [eventId],
  );
  return rows[0]!;
}

describe("a delivery's body read from its event (real PostgreSQL, Redis, BullMQ, HTTP)", () => {
  it("sends the body built from the event row, and the same bytes again on a retry after a failure", async () => {
    const r = await receiver();
    let calls = 0;
    r.answer = (_webhook, res) => res.writeHead(++calls === 1 ? 503 : 204).end();
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, 1);
    const [delivery] = await w.deliveries(accountId);
    const { rows: stored } = await w.db.pool.query<{ payload: unknown }>(
      "SELECT payload FROM webhook_deliveries WHERE event_id = $1",
      [delivery!.event_id],
    );
    // The event row is all there is to build the body from, on the first attempt and the retry.
    expect(stored[0]!.payload).toBeNull();

    await waitFor(async () => (await w.deliveries(accountId))[0]?.status === "succeeded", {
      what: "succeeded on the retry",
    });
    expect(r.received).toHaveLength(2);
    const expected = renderWebhookBody(toWebhookEvent(await eventRow(delivery!.event_id)));
    expect(r.received.map((hook) => hook.raw)).toEqual([expected, expected]);
    expect(r.received.map((hook) => hook.id)).toEqual([delivery!.event_id, delivery!.event_id]);
    expect((await w.deliveries(accountId))[0]!.attempts).toBe(2);
  });

  it("prefers a delivery's own copy of the body (a row written before deliveries stopped copying it)", async () => {
    const r = await receiver();
    const { accountId } = await w.account(r.url);
    // Written while the endpoint is disabled (failed at once, nothing sent), then given a copy
    // of its own and released for the reconciler.
    await w.endpoints.disable(accountId, "operator");
    await w.emitEvents(accountId, 1);
    const [delivery] = await w.deliveries(accountId);
    const event = toWebhookEvent(await eventRow(delivery!.event_id));
    const copy = { ...event, data: { ...event.data, error_message: "as copied at the time" } };
    await w.db.pool.query(
      `UPDATE webhook_deliveries SET payload = $2, status = 'pending', next_attempt_at = now() - interval '1 hour'
       WHERE event_id = $1`,
      [delivery!.event_id, copy],
    );
    await w.endpoints.enable(accountId);
    await waitFor(() => r.received.length >= 1, { what: "the webhook" });
    expect(r.received.at(-1)!.raw).toBe(renderWebhookBody(copy));
  });

  it("fails a delivery whose event row is gone and that has no copy, sending nothing", async () => {
    const r = await receiver();
    const { accountId } = await w.account(r.url);
    await w.db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, status, next_attempt_at)
       VALUES ('evt_01KZZZZZZZZZZZZZZZZZZZZZZZ', $1, 'msg_01KZZZZZZZZZZZZZZZZZZZZZZZ', 'message.failed', 'pending', now() - interval '1 hour')`,
      [accountId],
    );
    await waitFor(async () => (await w.deliveries(accountId))[0]?.status === "failed", { what: "failed" });
    const { rows } = await w.db.pool.query(
      "SELECT last_error, attempts FROM webhook_deliveries WHERE account_id = $1",
      [accountId],
    );
    expect(rows).toEqual([{ last_error: "event not found", attempts: 0 }]);
    expect(r.received).toHaveLength(0);
  });
});
