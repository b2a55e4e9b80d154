import { applyTransition, promoteDueScheduled } from "@sms/message-state";
import { toWebhookEvent, type OutboxRow } from "@sms/webhooks";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

describe("client_ref: the customer's own reference (docs/decisions.md#client-ref)", () => {
  let gw: TestGateway;
  let alice: TestAccount;
  let bob: TestAccount;
  const send = (account: TestAccount, body: Record<string, unknown>) =>
    gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { to: "+14155550100", message: "hi", sender_id: "ACME", ...body },
    });
  const webhookData = async (messageId: string) => {
    const { rows } = await gw.db.pool.query<OutboxRow>(
      `SELECT id, account_id, message_id, type, sequence, created_at, payload FROM events AS o WHERE message_id = $1 ORDER BY sequence`,
      [messageId],
    );
    return rows.map((row) => ({ event: row.type, ...toWebhookEvent(row).data }));
  };

  beforeAll(async () => {
    gw = await startTestGateway();
    alice = await gw.createAccount({ credits: 1000 });
    bob = await gw.createAccount({ credits: 1000 });
  });
  afterAll(() => gw.stop());

  it("is echoed by send and GET, filters the list per account, and rides on every webhook", async () => {
    const sent = await send(alice, { client_ref: "order-4711" });
    expect(sent.status).toBe(202);
    expect(sent.body.client_ref).toBe("order-4711");
    await send(alice, { client_ref: "order-other" });
    await send(bob, { client_ref: "order-4711" });

    const got = await gw.request("GET", `/v1/sms/${sent.body.message_id}`, { key: alice.key });
    expect(got.body.client_ref).toBe("order-4711");

    const list = await gw.request("GET", "/v1/sms?client_ref=order-4711", { key: alice.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { message_id: string }) => m.message_id)).toEqual([sent.body.message_id]);
    expect(list.body.data[0].client_ref).toBe("order-4711");

    await applyTransition(gw.db.pool, { messageId: sent.body.message_id, to: "sent", at: new Date() });
    await applyTransition(gw.db.pool, { messageId: sent.body.message_id, to: "delivered", at: new Date() });
    expect(await webhookData(sent.body.message_id)).toEqual([
      expect.objectContaining({ event: "message.queued", client_ref: "order-4711" }),
      expect.objectContaining({ event: "message.sent", client_ref: "order-4711" }),
      expect.objectContaining({ event: "message.delivered", client_ref: "order-4711" }),
    ]);
  });

  it("is null when not given, in GET, lists and webhooks", async () => {
    const sent = await send(alice, {});
    expect(sent.body.client_ref).toBeNull();
    const got = await gw.request("GET", `/v1/sms/${sent.body.message_id}`, { key: alice.key });
    expect(got.body.client_ref).toBeNull();
    const [queued] = await webhookData(sent.body.message_id);
    expect(queued).toHaveProperty("client_ref", null);
  });

  it("survives the scheduler's promotion into the message.queued event", async () => {
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const sent = await send(alice, { client_ref: "later-1", scheduled_at: inAnHour });
    expect(sent.body.status).toBe("scheduled");
    await gw.db.pool.query("UPDATE messages SET scheduled_at = now() - interval '1 second' WHERE id = $1", [
      sent.body.message_id,
    ]);
    // Other tests' messages may be due too: promote until ours is.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const promoted = await promoteDueScheduled(gw.db.pool);
      if (promoted.some((m) => m.messageId === sent.body.message_id) || promoted.length === 0) break;
    }
    expect(await webhookData(sent.body.message_id)).toEqual([
      expect.objectContaining({ event: "message.queued", status: "queued", client_ref: "later-1" }),
    ]);
  });

  it("takes one client_ref for a batch and another per item", async () => {
    const batch = await gw.request("POST", "/v1/sms/bulk", {
      key: alice.key,
      body: {
        sender_id: "ACME",
        client_ref: "campaign-9",
        messages: [
          { to: "+14155550101", message: "a", client_ref: "campaign-9-alice" },
          { to: "+14155550102", message: "b" },
        ],
      },
    });
    expect(batch.status).toBe(202);
    expect(batch.body.messages.map((m: { client_ref: string }) => m.client_ref)).toEqual([
      "campaign-9-alice",
      "campaign-9",
    ]);
    const list = await gw.request("GET", "/v1/sms?client_ref=campaign-9-alice", { key: alice.key });
    expect(list.body.data.map((m: { to: string }) => m.to)).toEqual(["+14155550101"]);
    const [first] = await webhookData(batch.body.messages[0].message_id);
    expect(first).toHaveProperty("client_ref", "campaign-9-alice");
  });

  it("refuses an empty or too long client_ref in the documented error shape, storing nothing", async () => {
    expectError(await send(alice, { client_ref: "x".repeat(129) }), 400, "VALIDATION_ERROR");
    expectError(await send(alice, { client_ref: "" }), 400, "VALIDATION_ERROR");
    expectError(await send(alice, { client_ref: 42 }), 400, "VALIDATION_ERROR");
    expect((await send(alice, { client_ref: "y".repeat(128) })).status).toBe(202);
    const bulk = await gw.request("POST", "/v1/sms/bulk", {
      key: alice.key,
      body: {
        sender_id: "ACME",
        messages: [{ to: "+14155550101", message: "a", client_ref: "z".repeat(129) }],
      },
    });
    expectError(bulk, 400, "VALIDATION_ERROR");
    expectError(
      await gw.request("GET", `/v1/sms?client_ref=${"q".repeat(129)}`, { key: alice.key }),
      400,
      "VALIDATION_ERROR",
    );
  });
});
