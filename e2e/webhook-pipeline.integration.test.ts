import { Webhook } from "standardwebhooks";
import { startDispatchWorld, type DispatchWorld } from "@sms/dispatcher/test/harness";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest } from "@sms/dlr-ingest";
import { createLogger } from "@sms/logger";
import { createSecretBox } from "@sms/secret-box";
import { waitFor } from "@sms/testing";
import { WebhookEndpoints } from "@sms/webhooks";
import { startReceiver, type Receiver } from "@sms/webhook-delivery/test/receiver";
import { startWebhookStage } from "./webhook-stage";

/**
 * The whole path for real: acceptance → dispatcher → carrier simulator over SMPP →
 * receipt → dlr-ingest → status change → event relay → webhook-delivery → receiver.
 */
describe("status webhooks through the real pipeline", () => {
  let d: DispatchWorld;
  let receiver: Receiver;
  let secret: string;
  let endpoints: WebhookEndpoints;
  const stops: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    d = await startDispatchWorld();
    receiver = await startReceiver();
    const key = d.world.env.SECRET_ENCRYPTION_KEY!;
    endpoints = new WebhookEndpoints(d.db.prisma, createSecretBox(key), {
      allowLoopback: true,
      allowHttp: true,
    });
    secret = (await endpoints.register(d.accountId, receiver.url)).secret!;
    const logger = createLogger("webhook-pipeline-test", "error");
    const dlr = await startDlrIngest(
      loadDlrIngestConfig({ ...d.world.env, PORT: "0", HOST: "127.0.0.1", CARRIER_REFRESH_MS: "200" }),
      logger,
    );
    stops.push(() => dlr.stop());
    stops.push(await startWebhookStage(d, logger));
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await receiver.close();
    await d.stop();
  });

  /** The message's webhooks, checked for signature and uniqueness, in sequence order. */
  async function eventsOf(messageId: string, count: number) {
    const hooks = await waitFor(
      () => {
        const mine = receiver.received.filter((h) => h.body.message_id === messageId);
        return mine.length >= count ? mine : undefined;
      },
      { what: `${count} webhooks for ${messageId}`, timeoutMs: 20_000 },
    );
    for (const hook of hooks) new Webhook(secret).verify(hook.raw, hook.headers);
    expect(new Set(hooks.map((h) => h.id)).size).toBe(hooks.length);
    return hooks
      .map((h) => h.body)
      .sort((a, b) => Number(a.data.sequence) - Number(b.data.sequence))
      .map((b) => ({ event: b.event, ...b.data }) as Record<string, unknown>);
  }

  it("delivered: message.queued, message.sent, message.delivered with sequence 1, 2, 3", async () => {
    const message = await d.send("+14155550100", "Your parcel arrives today");
    await d.waitForStatus(message.id, ["delivered"]);
    const events = await eventsOf(message.id, 3);
    expect(events.map((e) => [e.event, e.sequence, e.status, e.previous_status])).toEqual([
      ["message.queued", 1, "queued", null],
      ["message.sent", 2, "sent", "queued"],
      ["message.delivered", 3, "delivered", "sent"],
    ]);
    expect(events[2]).toMatchObject({ to: "+14155550100", sender_id: "ACME", segments: 1, error_code: null });
    expect(events[2]!.delivered_at).toEqual(expect.any(String));
    expect(JSON.stringify(events)).not.toContain("parcel");
  });

  it("failed: message.queued, message.sent, message.failed with the receipt's error code", async () => {
    // Magic number 0001: the simulator's receipt says UNDELIV.
    const message = await d.send("+14155550001", "This one will not arrive");
    await d.waitForStatus(message.id, ["failed"]);
    const events = await eventsOf(message.id, 3);
    expect(events.map((e) => [e.event, e.sequence, e.previous_status])).toEqual([
      ["message.queued", 1, null],
      ["message.sent", 2, "queued"],
      ["message.failed", 3, "sent"],
    ]);
    expect(events[2]).toMatchObject({ status: "failed", error_code: "UNDELIVERABLE" });
  });

  it("an endpoint subscribed to final events gets only message.delivered: queued and sent cost no delivery", async () => {
    await endpoints.setEventTypes(d.accountId, ["message.delivered", "message.failed"]);
    try {
      const message = await d.send("+14155550100", "Final events only");
      await d.waitForStatus(message.id, ["delivered"]);
      const [delivered] = await eventsOf(message.id, 1);
      expect(delivered).toMatchObject({ event: "message.delivered", sequence: 3, previous_status: "sent" });
      // The relay publishes a message's events in order, so by the time message.delivered was
      // sent, queued and sent had been claimed: no row, no job, no POST was made for them.
      const { rows: pending } = await d.db.pool.query(
        "SELECT count(*)::int AS n FROM outbox_pending p JOIN events o ON o.id = p.event_id WHERE o.message_id = $1",
        [message.id],
      );
      expect(pending[0].n).toBe(0);
      const { rows } = await d.db.pool.query(
        "SELECT event_type FROM webhook_deliveries WHERE message_id = $1",
        [message.id],
      );
      expect(rows).toEqual([{ event_type: "message.delivered" }]);
      expect(
        receiver.received.filter((h) => h.body.message_id === message.id).map((h) => h.body.event),
      ).toEqual(["message.delivered"]);
    } finally {
      await endpoints.setEventTypes(d.accountId, null);
    }
  });
});
