import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

describe("POST /v1/sms/bulk and GET /v1/batches/{batch_id}", () => {
  let gw: TestGateway;
  let account: TestAccount;

  beforeAll(async () => {
    gw = await startTestGateway();
    account = await gw.createAccount({ credits: 100, maxBatchSize: 50 });
  });
  afterAll(() => gw.stop());

  it("accepts the valid items, reports the invalid ones by index, and charges only the accepted", async () => {
    const response = await gw.request("POST", "/v1/sms/bulk", {
      key: account.key,
      body: {
        sender_id: "ACME",
        messages: [
          { to: "+14155550100", message: "one" },
          { to: "+1415", message: "bad number" },
          { to: "+14155550101", message: "x".repeat(2000) },
          { to: "+14155550102", message: "مرحبا" },
        ],
      },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({
      accepted: 2,
      rejected: 2,
      batch_id: expect.stringMatching(/^bat_/),
    });
    expect(response.body.messages.map((m: { index: number }) => m.index)).toEqual([0, 3]);
    expect(response.body.errors).toEqual([
      {
        index: 1,
        to: "+1415",
        error: expect.objectContaining({ code: "INVALID_PHONE", field: "messages[1].to" }),
      },
      {
        index: 2,
        to: "+14155550101",
        error: expect.objectContaining({ code: "MESSAGE_TOO_LONG", field: "messages[2].message" }),
      },
    ]);
    const balance = (await gw.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } }))
      .balance;
    expect(balance).toBe(98n);

    const batch = await gw.request("GET", `/v1/batches/${response.body.batch_id}`, { key: account.key });
    expect(batch.status).toBe(200);
    // The first address still answers the same.
    const firstAddress = await gw.request("GET", `/v1/sms/bulk/${response.body.batch_id}`, {
      key: account.key,
    });
    expect(firstAddress.body).toEqual(batch.body);
    expect(batch.body).toMatchObject({
      total: 4,
      accepted: 2,
      rejected: 2,
      sender_id: "ACME",
      counts: { queued: 2, delivered: 0 },
    });
    const listed = await gw.request("GET", `/v1/sms?batch_id=${response.body.batch_id}`, {
      key: account.key,
    });
    expect(listed.body.data).toHaveLength(2);
  });

  it("fails the whole request for an unauthorized sender id", async () => {
    expectError(
      await gw.request("POST", "/v1/sms/bulk", {
        key: account.key,
        body: { sender_id: "NOPE", messages: [{ to: "+14155550100", message: "x" }] },
      }),
      403,
      "INVALID_SENDER",
    );
  });

  it("rejects more items than the account's limit with BATCH_TOO_LARGE", async () => {
    const messages = Array.from({ length: 51 }, () => ({ to: "+14155550100", message: "x" }));
    expectError(
      await gw.request("POST", "/v1/sms/bulk", { key: account.key, body: { sender_id: "ACME", messages } }),
      400,
      "BATCH_TOO_LARGE",
    );
  });

  it("takes the credits of a batch all or none", async () => {
    const poor = await gw.createAccount({ credits: 3 });
    const messages = Array.from({ length: 4 }, (_, i) => ({ to: `+1415555010${i}`, message: "x" }));
    expectError(
      await gw.request("POST", "/v1/sms/bulk", { key: poor.key, body: { sender_id: "ACME", messages } }),
      402,
      "INSUFFICIENT_CREDITS",
    );
    expect(await gw.db.prisma.message.count({ where: { accountId: poor.accountId } })).toBe(0);
    expect(await gw.db.prisma.batch.count({ where: { accountId: poor.accountId } })).toBe(0);
    expect((await gw.db.prisma.account.findUniqueOrThrow({ where: { id: poor.accountId } })).balance).toBe(
      3n,
    );
  });

  it("answers VALIDATION_ERROR when no item is valid, and for a body that is not a batch", async () => {
    const error = expectError(
      await gw.request("POST", "/v1/sms/bulk", {
        key: account.key,
        body: { sender_id: "ACME", messages: [{ to: "x", message: "a" }] },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(error.details).toEqual([
      expect.objectContaining({ field: "messages[0].to", code: "INVALID_PHONE" }),
    ]);
    expectError(
      await gw.request("POST", "/v1/sms/bulk", {
        key: account.key,
        body: { sender_id: "ACME", messages: [] },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await gw.request("POST", "/v1/sms/bulk", { key: account.key, body: [1, 2] }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await gw.request("POST", "/v1/sms/bulk", {
        key: account.key,
        body: { sender_id: "ACME", messages: [{ to: "+14155550100" }] },
      }),
      400,
      "VALIDATION_ERROR",
    );
  });
});
