import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

describe("reading, listing and canceling messages", () => {
  let gw: TestGateway;
  let alice: TestAccount;
  let bob: TestAccount;
  const send = (account: TestAccount, body: Record<string, unknown>) =>
    gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { to: "+14155550100", message: "hi", sender_id: "ACME", ...body },
    });

  beforeAll(async () => {
    gw = await startTestGateway();
    alice = await gw.createAccount({ credits: 1000 });
    bob = await gw.createAccount({ credits: 1000 });
  });
  afterAll(() => gw.stop());

  it("returns a message with its status history", async () => {
    const { body } = await send(alice, {});
    const response = await gw.request("GET", `/v1/sms/${body.message_id}`, { key: alice.key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      message_id: body.message_id,
      status: "queued",
      message: "hi",
      credits: 1,
      source: "api",
    });
    expect(response.body.history).toEqual([
      { status: "queued", previous_status: null, sequence: 1, at: expect.any(String), error_code: null },
    ]);
  });

  it("answers the id of an SMPP part with the reassembled message and the part's index", async () => {
    const { body } = await send(alice, {});
    const parts = ["msg_01ARZ3NDEKTSV4RRFFQ69G5PA1", "msg_01ARZ3NDEKTSV4RRFFQ69G5PA2"];
    for (const [i, id] of parts.entries())
      await gw.db.pool.query(
        `INSERT INTO smpp_submits (id, account_id, message_id, source_addr, destination_addr, concat_key, part_seq, part_total)
         VALUES ($1, $2, $3, 'ACME', '14155550100', 'ACME|14155550100|7', $4, 2)`,
        [id, alice.accountId, body.message_id, i + 1],
      );
    const response = await gw.request("GET", `/v1/sms/${parts[1]}`, { key: alice.key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      message_id: body.message_id,
      smpp_part: { id: parts[1], index: 2, total: 2 },
    });
    expect(response.body.history).toHaveLength(1);
    expect(
      (await gw.request("GET", `/v1/sms/${body.message_id}`, { key: alice.key })).body,
    ).not.toHaveProperty("smpp_part");
    expectError(await gw.request("GET", `/v1/sms/${parts[0]}`, { key: bob.key }), 404, "NOT_FOUND");
  });

  it("never shows one account's messages to another: 404 exactly like an unknown id", async () => {
    const { body } = await send(alice, {});
    const foreign = await gw.request("GET", `/v1/sms/${body.message_id}`, { key: bob.key });
    const unknown = await gw.request("GET", "/v1/sms/msg_01ARZ3NDEKTSV4RRFFQ69G5FAV", { key: bob.key });
    expectError(foreign, 404, "NOT_FOUND");
    expectError(unknown, 404, "NOT_FOUND");
    expect(foreign.body.error.message).toBe(unknown.body.error.message);
    expectError(
      await gw.request("POST", `/v1/sms/${body.message_id}/cancel`, { key: bob.key }),
      404,
      "NOT_FOUND",
    );
    const list = await gw.request("GET", "/v1/sms?limit=200", { key: bob.key });
    expect(list.body.data.map((m: { message_id: string }) => m.message_id)).not.toContain(body.message_id);
    const batch = await gw.request("POST", "/v1/sms/bulk", {
      key: alice.key,
      body: { sender_id: "ACME", messages: [{ to: "+14155550100", message: "x" }] },
    });
    expectError(
      await gw.request("GET", `/v1/sms/bulk/${batch.body.batch_id}`, { key: bob.key }),
      404,
      "NOT_FOUND",
    );
  });

  it("lists newest first with filters and walks every page with the cursor", async () => {
    const carol = await gw.createAccount({ credits: 1000 });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await send(carol, { to: i % 2 ? "+14155550101" : "+14155550102" })).body.message_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        status: number;
        body: { data: Array<{ message_id: string }>; next_cursor: string | null };
      } = await gw.request("GET", `/v1/sms?limit=3${cursor ? `&cursor=${cursor}` : ""}`, { key: carol.key });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((m) => m.message_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const filtered = await gw.request("GET", "/v1/sms?to=%2B14155550101&status=queued", { key: carol.key });
    expect(filtered.body.data).toHaveLength(3);
    const future = await gw.request(
      "GET",
      `/v1/sms?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      { key: carol.key },
    );
    expect(future.body.data).toHaveLength(0);
    expectError(await gw.request("GET", "/v1/sms?status=lost", { key: carol.key }), 400, "VALIDATION_ERROR");
    expectError(
      await gw.request("GET", "/v1/sms?cursor=garbage", { key: carol.key }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await gw.request("GET", "/v1/sms?limit=1000", { key: carol.key }), 400, "VALIDATION_ERROR");
  });

  it("cancels a scheduled message, returns its credits, and refuses to cancel twice", async () => {
    const dave = await gw.createAccount({ credits: 10 });
    const { body } = await send(dave, {
      scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
      message: "y".repeat(200),
    });
    expect((await gw.db.prisma.account.findUniqueOrThrow({ where: { id: dave.accountId } })).balance).toBe(
      8n,
    );
    const canceled = await gw.request("POST", `/v1/sms/${body.message_id}/cancel`, { key: dave.key });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: "canceled", canceled_at: expect.any(String) });
    expect((await gw.db.prisma.account.findUniqueOrThrow({ where: { id: dave.accountId } })).balance).toBe(
      10n,
    );
    const ledger = await gw.db.prisma.creditLedgerEntry.findMany({
      where: { messageId: body.message_id },
      orderBy: { id: "asc" },
    });
    expect(ledger.map((e) => [e.reason, e.delta, e.balanceAfter])).toEqual([
      ["message_charge", -2n, 8n],
      ["message_refund", 2n, 10n],
    ]);
    const history = (await gw.request("GET", `/v1/sms/${body.message_id}`, { key: dave.key })).body.history;
    expect(history.map((h: { status: string }) => h.status)).toEqual(["scheduled", "canceled"]);
    expectError(
      await gw.request("POST", `/v1/sms/${body.message_id}/cancel`, { key: dave.key }),
      409,
      "NOT_CANCELABLE",
    );
    const queued = await send(dave, {});
    expectError(
      await gw.request("POST", `/v1/sms/${queued.body.message_id}/cancel`, { key: dave.key }),
      409,
      "NOT_CANCELABLE",
    );
  });

  it("shows the account: fresh balance, limits, authorized sender ids and inbound numbers", async () => {
    const erin = await gw.createAccount({ credits: 42, senders: ["ZED", "ACME"] });
    await gw.db.pool.query(
      `INSERT INTO inbound_numbers (number, account_id) VALUES ('+14155550142', $1), ('46645', $1)`,
      [erin.accountId],
    );
    const response = await gw.request("GET", "/v1/account", { key: erin.key });
    expect(response.body).toMatchObject({
      account_id: erin.accountId,
      balance: 42,
      status: "active",
      sender_ids: ["ACME", "ZED"],
      inbound_numbers: ["+14155550142", "46645"],
    });
    expect(response.body.limits).toMatchObject({
      requests_per_second: 10000,
      max_batch_size: 10000,
      max_segments: 10,
    });
    expect(response.body.webhook).toBeNull();
    expect(response.body.auto_replies).toEqual({ stop: null, start: null, help: null });
    await gw.db.pool.query("UPDATE accounts SET auto_reply_stop = 'Bye from Erin' WHERE id = $1", [
      erin.accountId,
    ]);
    const after = await gw.request("GET", "/v1/account", { key: erin.key });
    expect(after.body.auto_replies).toEqual({ stop: "Bye from Erin", start: null, help: null });
  });

  it("shows the webhook endpoint's event types spelled out, and whether it receives every event", async () => {
    const frank = await gw.createAccount();
    const endpoint = async () => (await gw.request("GET", "/v1/account", { key: frank.key })).body.webhook;
    await gw.db.pool.query(
      `INSERT INTO webhook_endpoints (account_id, url, secret_sealed, updated_at)
       VALUES ($1, 'https://hooks.example.com/sms', 'sealed', now())`,
      [frank.accountId],
    );
    expect(await endpoint()).toEqual({
      url: "https://hooks.example.com/sms",
      enabled: true,
      event_types: [
        "message.queued",
        "message.sent",
        "message.delivered",
        "message.failed",
        "message.received",
      ],
      all_events: true,
    });
    await gw.db.pool.query(
      "UPDATE webhook_endpoints SET event_types = ARRAY['message.delivered', 'message.failed'] WHERE account_id = $1",
      [frank.accountId],
    );
    expect(await endpoint()).toMatchObject({
      event_types: ["message.delivered", "message.failed"],
      all_events: false,
    });
    const webhook = (await gw.request("GET", "/openapi.json")).body.components.schemas.Account.properties
      .webhook;
    expect(webhook.type).toEqual(["object", "null"]);
    expect(webhook.properties.event_types.items.enum).toEqual([
      "message.queued",
      "message.sent",
      "message.delivered",
      "message.failed",
      "message.received",
    ]);
    expect(webhook.required.sort()).toEqual(["all_events", "enabled", "event_types", "url"]);
  });
});
