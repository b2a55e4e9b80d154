import { createLogger } from "@sms/logger";
import { waitFor } from "@sms/testing";
import { createSecretBox } from "@sms/secret-box";
import { WebhookEndpoints } from "@sms/webhooks";
import { startDispatchWorld, type DispatchWorld } from "@sms/dispatcher/test/harness";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest } from "@sms/dlr-ingest";
import { loadWebhookDeliveryConfig } from "@sms/webhook-delivery";
import { startWebhookDelivery } from "@sms/webhook-delivery";
import { TEST_ENV } from "@sms/webhook-delivery/test/harness";
import { startReceiver, type Receiver } from "@sms/webhook-delivery/test/receiver";
import { loadSchedulerConfig } from "@sms/scheduler";
import { startScheduler } from "@sms/scheduler";

/**
 * The end of a message's life (docs/messages.md#validity) through the whole pipeline: acceptance → dispatcher
 * → carrier simulator over real SMPP → dlr-ingest; the scheduler's sweeps (validity, receipt
 * timeout) and event relay → webhook-delivery → the customer's endpoint. Validity and the
 * grace are seconds here instead of hours.
 */
let w: DispatchWorld;
let receiver: Receiver;
let endpoints: WebhookEndpoints;
const stops: Array<() => Promise<void>> = [];
const GRACE_SECONDS = 1;

beforeAll(async () => {
  w = await startDispatchWorld();
  receiver = await startReceiver();
  const key = w.world.env.SECRET_ENCRYPTION_KEY!;
  endpoints = new WebhookEndpoints(w.db.prisma, createSecretBox(key), {
    allowLoopback: true,
    allowHttp: true,
  });
  await endpoints.register(w.accountId, receiver.url);
  const logger = createLogger("validity-test", "error");
  const env = { ...w.world.env, PORT: "0", HOST: "127.0.0.1" };
  const dlr = await startDlrIngest(loadDlrIngestConfig({ ...env, CARRIER_REFRESH_MS: "200" }), logger);
  stops.push(() => dlr.stop());
  const scheduler = await startScheduler(
    loadSchedulerConfig({
      ...env,
      EXPIRY_INTERVAL_MS: "200",
      RECEIPT_TIMEOUT_GRACE_SECONDS: String(GRACE_SECONDS),
      EVENT_RELAY_IDLE_MS: "20",
    }),
    logger,
  );
  stops.push(() => scheduler.stop());
  const hooks = await startWebhookDelivery(
    loadWebhookDeliveryConfig({ ...w.world.env, ...TEST_ENV, SECRET_ENCRYPTION_KEY: key }),
    logger,
  );
  stops.push(() => hooks.stop());
  await waitFor(() => w.simulator.stats().binds.some((b) => b.state === "bound_rx") || undefined, {
    what: "dlr-ingest's receiver bind",
  });
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await receiver?.close();
  await w?.stop();
});

async function send(accountId: string, to: string, validForMs: number, scheduledAt?: Date) {
  return w.acceptance.acceptor.acceptOne(
    { id: accountId, senderIds: new Set(["ACME"]) },
    {
      to,
      message: `valid for ${validForMs} ms`,
      senderId: "ACME",
      validUntil: new Date(Date.now() + validForMs),
      scheduledAt: scheduledAt?.toISOString(),
    },
  );
}

const messageRow = async (id: string) =>
  (await w.db.pool.query("SELECT status::text, error_code FROM messages WHERE id = $1", [id])).rows[0];
const history = async (id: string) =>
  (
    await w.db.pool.query<{ status: string }>(
      "SELECT status::text FROM message_events WHERE message_id = $1 ORDER BY sequence",
      [id],
    )
  ).rows.map((row) => row.status);
/** The refund entry of a message refunded alone (an entry names its message when it covers one). */
const refunds = async (id: string) =>
  (
    await w.db.pool.query(
      "SELECT delta::int FROM credit_ledger WHERE reason = 'message_refund' AND message_id = $1",
      [id],
    )
  ).rows;
const webhooksOf = (id: string) => receiver.received.filter((hook) => hook.body.message_id === id);
const failedWebhook = (id: string) =>
  waitFor(() => webhooksOf(id).find((hook) => hook.body.event === "message.failed"), {
    what: `the message.failed webhook of ${id}`,
    timeoutMs: 20_000,
  });

it("a receipt that never comes: RECEIPT_TIMEOUT once validity and grace are over, with its webhook, no refund", async () => {
  // …0006: the carrier accepts and never sends a receipt.
  const message = await send(w.accountId, "+14155550006", 1500);
  const hook = await failedWebhook(message.id);
  expect(hook.body.data).toMatchObject({
    status: "failed",
    previous_status: "sent",
    error_code: "RECEIPT_TIMEOUT",
    error_message: `No final delivery receipt came within the validity period plus ${GRACE_SECONDS} s.`,
  });
  expect(await messageRow(message.id)).toEqual({ status: "failed", error_code: "RECEIPT_TIMEOUT" });
  expect(await history(message.id)).toEqual(["queued", "sent", "failed"]);
  // Not before its validity and the grace were over.
  const failedAt = Date.parse(hook.body.timestamp);
  expect(failedAt - message.createdAt.getTime()).toBeGreaterThanOrEqual(1500 + GRACE_SECONDS * 1000 - 50);
  // The carrier took it (and was told how long it may keep it): no credits back.
  expect(await refunds(message.id)).toEqual([]);
  expect(w.simulator.messages({ to: "+14155550006" })[0]!.validityPeriod).toMatch(/^0000000000(01|02)000R$/);
});

it("a submit accepted without a message_id, which no receipt can match, ends RECEIPT_TIMEOUT too", async () => {
  // …0011: ESME_ROK with an empty message_id.
  const message = await send(w.accountId, "+14155550011", 1000);
  const hook = await failedWebhook(message.id);
  expect(hook.body.data).toMatchObject({ previous_status: "sent", error_code: "RECEIPT_TIMEOUT" });
  const { rows } = await w.db.pool.query(
    "SELECT carrier_message_id FROM message_segments WHERE message_id = $1",
    [message.id],
  );
  expect(rows).toEqual([{ carrier_message_id: null }]);
});

it("a receipt after the timeout is recorded and ignored: the message stays failed, no webhook follows", async () => {
  w.simulator.update({ receiptDelayMs: 5000 });
  try {
    const message = await send(w.accountId, "+14155551501", 1000);
    await failedWebhook(message.id);
    expect(await messageRow(message.id)).toEqual({ status: "failed", error_code: "RECEIPT_TIMEOUT" });
    // Recorded on its segment, which keeps what the carrier said (docs/decisions.md#applied-receipts);
    // the message does not move.
    const segment = await waitFor(
      async () => {
        const { rows } = await w.db.pool.query(
          "SELECT status::text, done_at IS NOT NULL AS done FROM message_segments WHERE message_id = $1",
          [message.id],
        );
        return rows[0]?.status === "delivered" ? rows : undefined;
      },
      { what: "the late receipt to be stored", timeoutMs: 20_000 },
    );
    expect(segment).toEqual([{ status: "delivered", done: true }]);
    // Give a wrongly emitted event time to travel through the relay and webhook-delivery.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await messageRow(message.id)).toEqual({ status: "failed", error_code: "RECEIPT_TIMEOUT" });
    expect(await history(message.id)).toEqual(["queued", "sent", "failed"]);
    expect(webhooksOf(message.id).map((hook) => hook.body.event)).not.toContain("message.delivered");
  } finally {
    w.simulator.update({ receiptDelayMs: 20 });
  }
});

it("validity that ends while the account's pace holds messages back: EXPIRED, refunded, with webhooks", async () => {
  const accountId = await w.createAccount({ messagesPerSecond: 1 });
  await endpoints.register(accountId, receiver.url);
  const sent = [];
  for (let i = 0; i < 8; i++) sent.push(await send(accountId, `+1415555160${i}`, 2500));
  for (const message of sent) await w.waitForStatus(message.id, ["delivered", "failed"], 20_000);
  const expired = [];
  for (const message of sent) {
    const row = await messageRow(message.id);
    if (row.status === "failed") expired.push({ ...message, ...row });
  }
  // At most four turns of one a second fit in 2.5 s.
  expect(expired.length).toBeGreaterThanOrEqual(4);
  // Refunded once each: the account's refund entries (one per statement and reason,
  // docs/decisions.md#ledger-per-statement) cover exactly the expired messages and their credits.
  const { rows: refunded } = await w.db.pool.query(
    `SELECT sum(message_count)::int AS messages, sum(delta)::int AS credits FROM credit_ledger
      WHERE reason = 'message_refund' AND account_id = $1`,
    [accountId],
  );
  expect(refunded).toEqual([
    { messages: expired.length, credits: expired.reduce((sum, message) => sum + message.credits, 0) },
  ]);
  for (const message of expired) {
    expect(message.error_code).toBe("EXPIRED");
    expect(w.simulator.messages({ to: message.to })).toHaveLength(0);
    expect((await failedWebhook(message.id)).body.data).toMatchObject({
      previous_status: "queued",
      error_code: "EXPIRED",
    });
  }
});

it("a scheduled message whose validity ends before it is due: EXPIRED, never queued, refunded", async () => {
  const message = await send(w.accountId, "+14155551700", 1000, new Date(Date.now() + 3000));
  expect(message.status).toBe("scheduled");
  const hook = await failedWebhook(message.id);
  expect(hook.body.data).toMatchObject({ previous_status: "scheduled", error_code: "EXPIRED" });
  expect(await history(message.id)).toEqual(["scheduled", "failed"]);
  expect(await refunds(message.id)).toEqual([{ delta: message.credits }]);
  // Past its due time it is still failed, and the carrier never saw it.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(await messageRow(message.id)).toEqual({ status: "failed", error_code: "EXPIRED" });
  expect(w.simulator.messages({ to: "+14155551700" })).toHaveLength(0);
});
