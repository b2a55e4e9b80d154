import { Webhook } from "standardwebhooks";
import { waitFor } from "@sms/testing";
import type { RunningWebhookDelivery } from "../src/service";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

let w: WebhookWorld;
let service: RunningWebhookDelivery;
const receivers: Receiver[] = [];

beforeAll(async () => {
  w = await startWebhookWorld();
  service = await w.start();
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

describe("webhook delivery (real PostgreSQL, Redis, BullMQ, HTTP)", () => {
  it("POSTs each event once, signed so the official Standard Webhooks library verifies it, and records the attempt", async () => {
    const r = await receiver();
    r.answer = (_w, res) => res.writeHead(200, { "content-type": "text/plain" }).end("thanks");
    const { accountId, secret } = await w.account(r.url);
    const [messageId] = await w.emitEvents(accountId, 1);
    await waitFor(() => r.received.length === 1, { what: "the webhook" });
    const hook = r.received[0]!;
    expect(new Webhook(secret).verify(hook.raw, hook.headers)).toEqual(hook.body);
    expect(hook.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Object.keys(hook.body)).toEqual(["event", "message_id", "timestamp", "data"]);
    expect(hook.body).toMatchObject({ event: "message.failed", message_id: messageId });
    expect(Object.keys(hook.body.data)).toEqual([
      "to",
      "status",
      "sender_id",
      "segments",
      "error_code",
      "error_message",
      "delivered_at",
      "sent_at",
      "sequence",
      "previous_status",
      "batch_id",
      "otp_id",
      "smpp_part_ids",
      "client_ref",
    ]);
    expect(hook.body.data).toMatchObject({
      status: "failed",
      previous_status: "queued",
      sequence: 2,
      error_code: "NO_ROUTE",
    });
    expect(hook.raw).not.toContain("secret text");

    await waitFor(async () => (await w.deliveries(accountId))[0]?.status === "succeeded", {
      what: "succeeded",
    });
    // A first-time success is kept on the delivery alone: no attempt row.
    const { rows } = await w.db.pool.query(
      `SELECT attempts, success_on_row, last_status_code, last_error,
              (SELECT count(*) FROM webhook_attempts AS a WHERE a.event_id = d.event_id)::int AS attempt_rows
       FROM webhook_deliveries AS d WHERE account_id = $1`,
      [accountId],
    );
    expect(rows).toEqual([
      { attempts: 1, success_on_row: true, last_status_code: 200, last_error: null, attempt_rows: 0 },
    ]);
    expect(r.received).toHaveLength(1);
  });

  it("retries a receiver that is down for a while: every event arrives, each under one id, none lost", async () => {
    const r = await receiver();
    let up = false;
    r.answer = (_w, res) => (up ? res.writeHead(204).end() : res.writeHead(503).end("maintenance"));
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, 40);
    await waitFor(() => r.received.length >= 80, { what: "two failed rounds" });
    up = true;
    await waitFor(async () => (await w.deliveries(accountId)).every((d) => d.status === "succeeded"), {
      what: "every delivery succeeded",
      timeoutMs: 20_000,
    });
    const deliveries = await w.deliveries(accountId);
    expect(deliveries).toHaveLength(40);
    // One id per event: the same (message, sequence) never arrives under two ids.
    const idsByEvent = new Map<string, Set<string>>();
    for (const hook of r.received) {
      const key = `${hook.body.message_id}/${String(hook.body.data.sequence)}`;
      idsByEvent.set(key, (idsByEvent.get(key) ?? new Set()).add(hook.id));
    }
    expect(idsByEvent.size).toBe(40);
    expect([...idsByEvent.values()].every((ids) => ids.size === 1)).toBe(true);
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(r.ids());
    // Every attempt is recorded: the failures as rows with their 503 and body, then one success
    // each, on its delivery.
    const { rows } = await w.db.pool.query(
      "SELECT count(*) FILTER (WHERE status_code = 503 AND response_body = 'maintenance')::int AS failed, count(*)::int AS all FROM webhook_attempts WHERE account_id = $1",
      [accountId],
    );
    expect(rows[0].failed).toBe(r.received.length - 40);
    expect(rows[0].all).toBe(rows[0].failed);
    const successes = await w.successesPerEvent(accountId);
    expect(successes).toHaveLength(40);
    expect(successes.filter((row) => row.successes !== 1)).toEqual([]);
    // The run of failures ended with the first success.
    expect((await w.endpoints.get(accountId))?.failingSince).toBeNull();
  });

  it("waits as long as Retry-After asks on a 429", async () => {
    const r = await receiver();
    let first = true;
    r.answer = (_w, res) => {
      if (first) {
        first = false;
        res.writeHead(429, { "retry-after": "2" }).end();
      } else res.writeHead(204).end();
    };
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, 1);
    await waitFor(() => r.received.length === 2, { what: "the retry", timeoutMs: 10_000 });
    const gap = r.received[1]!.receivedAt - r.received[0]!.receivedAt;
    expect(gap).toBeGreaterThanOrEqual(1900);
    expect(r.received[1]!.id).toBe(r.received[0]!.id);
  });

  it("gives up after the last step of the schedule and keeps the delivery as failed", async () => {
    const r = await receiver();
    r.answer = (_w, res) => res.writeHead(500).end();
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, 1);
    await waitFor(async () => (await w.deliveries(accountId))[0]?.status === "failed", {
      what: "failed for good",
      timeoutMs: 15_000,
    });
    expect(r.received).toHaveLength(10);
    expect((await w.deliveries(accountId))[0]!.attempts).toBe(10);
  });

  it("a 410 disables the endpoint; later events are kept as failed without a request", async () => {
    const r = await receiver();
    r.answer = (_w, res) => res.writeHead(410).end();
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, 1);
    await waitFor(async () => (await w.endpoints.get(accountId))?.enabled === false, { what: "disabled" });
    expect(await w.endpoints.get(accountId)).toMatchObject({ disabledReason: "gone" });
    await w.emitEvents(accountId, 3);
    const deliveries = await w.deliveries(accountId);
    expect(deliveries.map((d) => d.status)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(r.received).toHaveLength(1);
  });

  it("an endpoint that has been failing for 5 days is disabled by its next failure", async () => {
    const r = await receiver();
    r.answer = (_w, res) => res.writeHead(502).end();
    const { accountId } = await w.account(r.url);
    await w.emitEvents(accountId, 1);
    await waitFor(() => r.received.length >= 1, { what: "a failed attempt" });
    // The failure is recorded after the answer arrives: wait for it rather than race it.
    await waitFor(async () => (await w.endpoints.get(accountId))?.failingSince instanceof Date, {
      what: "the failure recorded on the endpoint",
    });
    expect((await w.endpoints.get(accountId))?.enabled).toBe(true);
    // As if the run of failures had started five days ago.
    await w.db.pool.query(
      "UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE account_id = $1",
      [accountId],
    );
    await waitFor(async () => (await w.endpoints.get(accountId))?.enabled === false, {
      what: "disabled after failing for 5 days",
      timeoutMs: 10_000,
    });
    expect(await w.endpoints.get(accountId)).toMatchObject({ disabledReason: "failing" });
  });

  it("a job lost from Redis is queued again by the reconciler", async () => {
    const r = await receiver();
    const { accountId } = await w.account(r.url);
    const [messageId] = await w.emitEvents(accountId, 1);
    await waitFor(() => r.received.length === 1, { what: "first delivery" });
    // The attempt is recorded after the POST returns: wait for it, or the record lands on
    // top of the reset below and the reconciler finds nothing to do.
    await waitFor(async () => (await w.deliveries(accountId))[0]?.status === "succeeded", {
      what: "the first delivery recorded",
    });
    // As after a Redis flush: the delivery is pending and overdue, and no job exists.
    await w.db.pool.query(
      "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() - interval '1 hour' WHERE account_id = $1",
      [accountId],
    );
    expect(await service.reconcileOnce()).toBeGreaterThanOrEqual(1);
    await waitFor(() => r.received.length === 2, { what: "the re-queued delivery" });
    expect(r.received[1]!.id).toBe(r.received[0]!.id);
    expect(r.received[1]!.body.message_id).toBe(messageId);
  });
});
