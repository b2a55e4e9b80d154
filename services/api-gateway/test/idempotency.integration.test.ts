import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

describe("Idempotency-Key", () => {
  let gw: TestGateway;
  let account: TestAccount;
  const body = { to: "+14155550100", message: "once only", sender_id: "ACME" };

  beforeAll(async () => {
    gw = await startTestGateway();
    account = await gw.createAccount({ credits: 100 });
  });
  afterAll(() => gw.stop());

  it("replays the first response for the same key and body, charging once", async () => {
    const headers = { "idempotency-key": "order-1001" };
    const first = await gw.request("POST", "/v1/sms/send", { key: account.key, body, headers });
    const second = await gw.request("POST", "/v1/sms/send", { key: account.key, body, headers });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await gw.db.prisma.message.count({ where: { accountId: account.accountId } })).toBe(1);
    expect((await gw.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).balance).toBe(
      99n,
    );
  });

  it("answers IDEMPOTENCY_CONFLICT for the same key with another body", async () => {
    const headers = { "idempotency-key": "order-1002" };
    await gw.request("POST", "/v1/sms/send", { key: account.key, body, headers });
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: account.key,
        body: { ...body, message: "changed" },
        headers,
      }),
      409,
      "IDEMPOTENCY_CONFLICT",
    );
  });

  it("lets only one of many concurrent requests with one key run", async () => {
    const headers = { "idempotency-key": "order-1003" };
    const before = await gw.db.prisma.message.count({ where: { accountId: account.accountId } });
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        gw.request("POST", "/v1/sms/send", { key: account.key, body, headers }),
      ),
    );
    expect(
      responses.every(
        (r) => r.status === 202 || (r.status === 409 && r.body.error.code === "IDEMPOTENCY_CONFLICT"),
      ),
    ).toBe(true);
    const ids = new Set(responses.filter((r) => r.status === 202).map((r) => r.body.message_id));
    expect(ids.size).toBe(1);
    expect(await gw.db.prisma.message.count({ where: { accountId: account.accountId } })).toBe(before + 1);
  });

  it("keeps keys per account: another account may reuse the same key", async () => {
    const other = await gw.createAccount({ credits: 10 });
    const headers = { "idempotency-key": "order-1001" };
    const response = await gw.request("POST", "/v1/sms/send", { key: other.key, body, headers });
    expect(response.status).toBe(202);
    expect(response.headers.get("idempotent-replayed")).toBeNull();
  });

  it("keeps keys per API key: another key of the account may reuse the same key", async () => {
    const headers = { "idempotency-key": "order-per-key" };
    const first = await gw.request("POST", "/v1/sms/send", { key: account.key, body, headers });
    const second = await gw.request("POST", "/v1/sms/send", { key: await gw.addKey(account), body, headers });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.message_id).not.toBe(first.body.message_id);
  });

  it("checks the permission first: a key that may not send neither claims nor reads a key", async () => {
    const headers = { "idempotency-key": "order-permission" };
    const readOnly = await gw.addKey(account, ["sms:read"]);
    expectError(await gw.request("POST", "/v1/sms/send", { key: readOnly, body, headers }), 403, "FORBIDDEN");
    const sent = await gw.request("POST", "/v1/sms/send", { key: account.key, body, headers });
    expect(sent.status).toBe(202);
    expect(sent.headers.get("idempotent-replayed")).toBeNull();
    expect(
      await gw.db.prisma.idempotencyRecord.count({
        where: { accountId: account.accountId, key: "order-permission" },
      }),
    ).toBe(1);
  });

  it("stores a validation error too, and replays it", async () => {
    const headers = { "idempotency-key": "bad-1" };
    const first = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...body, to: "+1" },
      headers,
    });
    const second = await gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { ...body, to: "+1" },
      headers,
    });
    expectError(first, 400, "INVALID_PHONE");
    expect(second.status).toBe(400);
    expect(second.body).toEqual(first.body);
  });

  it("has stored the answer by the time the client gets it: a retry at once is a replay, never 'in progress'", async () => {
    for (let i = 0; i < 20; i++) {
      const headers = { "idempotency-key": `at-once-${i}` };
      const sent = { ...body, to: i % 2 ? "+1" : body.to };
      const first = await gw.request("POST", "/v1/sms/send", { key: account.key, body: sent, headers });
      const { rows } = await gw.db.pool.query(
        "SELECT response_status FROM idempotency_records WHERE key = $1",
        [headers["idempotency-key"]],
      );
      expect(rows).toEqual([{ response_status: first.status }]);
      const retry = await gw.request("POST", "/v1/sms/send", { key: account.key, body: sent, headers });
      expect({ status: retry.status, replayed: retry.headers.get("idempotent-replayed") }).toEqual({
        status: first.status,
        replayed: "true",
      });
    }
  });

  it("rejects a malformed key", async () => {
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: account.key,
        body,
        headers: { "idempotency-key": "x".repeat(300) },
      }),
      400,
      "VALIDATION_ERROR",
    );
  });
});
