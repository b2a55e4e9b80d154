import { createRedis } from "@sms/redis";
import { pendingDispatchJobsOf } from "@sms/queues";
import { waitFor } from "@sms/testing";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

describe("POST /v1/sms/send", () => {
  let gw: TestGateway;
  let account: TestAccount;
  const valid = { to: "+14155550100", message: "Hello there", sender_id: "ACME" };

  beforeAll(async () => {
    gw = await startTestGateway();
    account = await gw.createAccount({ credits: 100 });
  });
  afterAll(() => gw.stop());

  it("accepts a message, charges a credit per segment, and puts it on the normal dispatch queue", async () => {
    const response = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...valid, message: "x".repeat(161) },
    });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({
      message_id: expect.stringMatching(/^msg_[0-9A-Z]{26}$/),
      status: "queued",
      to: "+14155550100",
      sender_id: "ACME",
      segments: 2,
      encoding: "GSM-7",
      scheduled_at: null,
      created_at: expect.any(String),
      priority: "normal",
      client_ref: null,
      expires_at: expect.any(String),
    });
    // The default validity, 48 h (docs/messages.md#validity), from acceptance.
    expect(Date.parse(response.body.expires_at) - Date.parse(response.body.created_at)).toBe(172_800_000);
    for (const header of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-request-id"])
      expect(response.headers.get(header)).toBeTruthy();
    const id = response.body.message_id as string;
    const row = await gw.db.prisma.message.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      status: "queued",
      segmentCount: 2,
      creditsCharged: 2,
      body: "x".repeat(161),
      accountId: account.accountId,
    });
    const ledger = await gw.db.prisma.creditLedgerEntry.findMany({ where: { messageId: id } });
    expect(ledger).toEqual([
      expect.objectContaining({ delta: -2n, balanceAfter: 98n, reason: "message_charge" }),
    ]);
    const { rows: events } = await gw.db.pool.query(
      "SELECT type, sequence FROM events WHERE message_id = $1",
      [id],
    );
    expect(events).toEqual([{ type: "message.queued", sequence: 1 }]);

    const connection = createRedis(gw.world.redisUrl, "queue");
    const context = { connection, prefix: gw.world.redisPrefix };
    const [held] = await waitFor(
      async () => {
        const jobs = await pendingDispatchJobsOf(context, id);
        return jobs.length > 0 ? jobs : undefined;
      },
      { what: "the dispatch job" },
    );
    expect(held!.priority).toBe("normal");
    expect(held!.job.data).toMatchObject({ messageIds: [id], accountId: account.accountId });
    await waitFor(async () => (await gw.db.prisma.dispatchOutbox.count({ where: { messageId: id } })) === 0, {
      what: "outbox row removed",
    });
    connection.disconnect();
  });

  it("detects UCS-2 for Arabic text and counts 67-character parts", async () => {
    const arabic = "مرحبا بكم في منصة الرسائل ".repeat(4);
    const response = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...valid, message: arabic },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ encoding: "UCS-2", segments: Math.ceil(arabic.length / 67) });
  });

  it("keeps a future scheduled_at as scheduled and does not enqueue it", async () => {
    const at = new Date(Date.now() + 3600_000).toISOString();
    const response = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...valid, scheduled_at: at },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ status: "scheduled", scheduled_at: at });
    const id = response.body.message_id;
    expect(await gw.db.prisma.dispatchOutbox.count({ where: { messageId: id } })).toBe(0);
    const { rows: events } = await gw.db.pool.query("SELECT 1 FROM events WHERE message_id = $1", [id]);
    expect(events).toEqual([]);
  });

  it("sends now when scheduled_at is a few seconds in the past (clock skew)", async () => {
    const response = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...valid, scheduled_at: new Date(Date.now() - 5000).toISOString() },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ status: "queued", scheduled_at: null });
  });

  it.each([
    ["2030-01-01T10:00:00", "no UTC offset"],
    ["2030-01-01T10:00:00+02:00", "a non-UTC offset"],
    ["tomorrow", "not a timestamp"],
    ["2030-02-30T10:00:00Z", "an impossible date"],
    [new Date(Date.now() - 120_000).toISOString(), "two minutes in the past"],
    [new Date(Date.now() + 181 * 86400_000).toISOString(), "more than 180 days ahead"],
  ])("rejects scheduled_at %s (%s) with INVALID_SCHEDULE", async (scheduledAt) => {
    const error = expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: account.key,
        body: { ...valid, scheduled_at: scheduledAt },
      }),
      400,
      "INVALID_SCHEDULE",
    );
    expect(error.field).toBe("scheduled_at");
  });

  it.each([["+1415"], ["14155550100"], ["+999999999999"], ["+4420"], ["phone"]])(
    "rejects the number %s with INVALID_PHONE naming the field",
    async (to) => {
      const error = expectError(
        await gw.request("POST", "/v1/sms/send", { key: account.key, body: { ...valid, to } }),
        400,
        "INVALID_PHONE",
      );
      expect(error.field).toBe("to");
    },
  );

  it("takes a priority on a send, a batch and a bulk item, stores and shows it, and refuses an unknown one", async () => {
    const high = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...valid, priority: "high" },
    });
    expect(high.status).toBe(202);
    expect(high.body.priority).toBe("high");
    const plain = await gw.request("POST", "/v1/sms/send", { key: account.key, body: valid });
    expect(plain.body.priority).toBe("normal");
    const shown = await gw.request("GET", `/v1/sms/${high.body.message_id as string}`, { key: account.key });
    expect(shown.body.priority).toBe("high");

    const bulk = await gw.request("POST", "/v1/sms/bulk", {
      key: account.key,
      body: {
        sender_id: "ACME",
        messages: [
          { to: "+14155550101", message: "a" },
          { to: "+14155550102", message: "b", priority: "high" },
        ],
      },
    });
    expect(bulk.status).toBe(202);
    const classes = await gw.db.pool.query<{ priority: string }>(
      "SELECT priority::text AS priority FROM messages WHERE id = ANY($1) ORDER BY to_number",
      [(bulk.body.messages as Array<{ message_id: string }>).map((m) => m.message_id)],
    );
    expect(classes.rows.map((row) => row.priority)).toEqual(["bulk", "high"]);

    const error = expectError(
      await gw.request("POST", "/v1/sms/send", { key: account.key, body: { ...valid, priority: "urgent" } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(error.field).toBe("priority");
  });

  it("normalizes a number written with spaces to E.164", async () => {
    const response = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...valid, to: "+44 20 7946 0958" },
    });
    expect(response.status).toBe(202);
    expect(response.body.to).toBe("+442079460958");
  });

  it("rejects a message over 10 segments with MESSAGE_TOO_LONG, and accepts exactly 1530 GSM-7 characters", async () => {
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: account.key,
        body: { ...valid, message: "a".repeat(1531) },
      }),
      400,
      "MESSAGE_TOO_LONG",
    );
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: account.key,
        body: { ...valid, message: "ع".repeat(671) },
      }),
      400,
      "MESSAGE_TOO_LONG",
    );
    const ok = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...valid, message: "a".repeat(1530) },
    });
    expect(ok.body.segments).toBe(10);
  });

  it("rejects a sender id the account does not own with INVALID_SENDER", async () => {
    const error = expectError(
      await gw.request("POST", "/v1/sms/send", { key: account.key, body: { ...valid, sender_id: "OTHER" } }),
      403,
      "INVALID_SENDER",
    );
    expect(error.field).toBe("sender_id");
  });

  it.each([
    [{ message: "hi", sender_id: "ACME" }, "to"],
    [{ to: "+14155550100", sender_id: "ACME" }, "message"],
    [{ to: "+14155550100", message: "hi" }, "sender_id"],
    [{ to: 14155550100, message: "hi", sender_id: "ACME" }, "to"],
    [{ ...{ to: "+14155550100", message: "hi", sender_id: "ACME" }, colour: "red" }, "body"],
    [{ to: "+14155550100", message: "", sender_id: "ACME" }, "message"],
  ])("rejects %j with VALIDATION_ERROR naming %s", async (body, field) => {
    const error = expectError(
      await gw.request("POST", "/v1/sms/send", { key: account.key, body }),
      400,
      "VALIDATION_ERROR",
    );
    expect(error.field).toBe(field);
  });

  it("answers INVALID_JSON, UNSUPPORTED_MEDIA_TYPE and PAYLOAD_TOO_LARGE for bad bodies", async () => {
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: account.key,
        rawBody: '{"to":',
        headers: { "content-type": "application/json" },
      }),
      400,
      "INVALID_JSON",
    );
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: account.key,
        rawBody: "to=+1",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expectError(
      await gw.request("POST", "/v1/sms/send", { key: account.key, rawBody: JSON.stringify(valid) }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    const huge = JSON.stringify({ ...valid, message: "a".repeat(1024 * 1024 + 10) });
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: account.key,
        rawBody: huge,
        headers: { "content-type": "application/json" },
      }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
  });

  it("refuses with INSUFFICIENT_CREDITS and writes nothing when the balance is short", async () => {
    const poor = await gw.createAccount({ credits: 1 });
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: poor.key,
        body: { ...valid, message: "b".repeat(200) },
      }),
      402,
      "INSUFFICIENT_CREDITS",
    );
    expect(await gw.db.prisma.message.count({ where: { accountId: poor.accountId } })).toBe(0);
    const account = await gw.db.prisma.account.findUniqueOrThrow({ where: { id: poor.accountId } });
    expect(account.balance).toBe(1n);
  });
});

describe("text PostgreSQL could not store", () => {
  let gw: TestGateway;
  let account: TestAccount;
  beforeAll(async () => {
    gw = await startTestGateway();
    account = await gw.createAccount();
  });
  afterAll(() => gw.stop());

  it("rejects a NUL or a lone surrogate in the message with VALIDATION_ERROR, never a 500", async () => {
    for (const message of ["a\u0000b", "x\ud800y"]) {
      const error = expectError(
        await gw.request("POST", "/v1/sms/send", {
          key: account.key,
          rawBody: JSON.stringify({ to: "+14155550100", message, sender_id: "ACME" }),
          headers: { "content-type": "application/json" },
        }),
        400,
        "VALIDATION_ERROR",
      );
      expect(error.field).toBe("message");
    }
    expect(await gw.db.prisma.message.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it("answers 404 or 400 for NUL bytes in ids and query strings, never a 500", async () => {
    expectError(await gw.request("GET", "/v1/sms/msg_%00", { key: account.key }), 404, "NOT_FOUND");
    expectError(await gw.request("POST", "/v1/sms/%00/cancel", { key: account.key }), 404, "NOT_FOUND");
    expectError(await gw.request("GET", "/v1/sms/bulk/bat_%00", { key: account.key }), 404, "NOT_FOUND");
    expectError(
      await gw.request("GET", "/v1/sms?batch_id=%00", { key: account.key }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await gw.request("GET", "/v1/sms?to=%2B1%00", { key: account.key }), 400, "VALIDATION_ERROR");
    const cursor = Buffer.from(JSON.stringify([new Date().toISOString(), "msg_\u0000"])).toString(
      "base64url",
    );
    expectError(
      await gw.request("GET", `/v1/sms?cursor=${cursor}`, { key: account.key }),
      400,
      "VALIDATION_ERROR",
    );
  });
});
