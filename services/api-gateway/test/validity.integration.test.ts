import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

describe("validity_period (docs/messages.md#validity)", () => {
  let gw: TestGateway;
  let account: TestAccount;
  const send = (body: Record<string, unknown>) =>
    gw.request("POST", "/v1/sms/send", {
      key: account.key,
      body: { to: "+14155550100", message: "hi", sender_id: "ACME", ...body },
    });
  const bulk = (body: Record<string, unknown>) =>
    gw.request("POST", "/v1/sms/bulk", { key: account.key, body: { sender_id: "ACME", ...body } });
  const storedEnd = async (id: string) =>
    (await gw.db.pool.query<{ expires_at: Date }>("SELECT expires_at FROM messages WHERE id = $1", [id]))
      .rows[0]!.expires_at;
  const seconds = (from: string | Date, to: Date) =>
    Math.round((to.getTime() - new Date(from).getTime()) / 1000);

  beforeAll(async () => {
    // A deployment whose default is 6 h: the setting, not a constant, decides.
    gw = await startTestGateway({ MESSAGE_VALIDITY_DEFAULT_SECONDS: "21600" });
    account = await gw.createAccount({ credits: 1000 });
  });
  afterAll(() => gw.stop());

  it("ends validity_period seconds after acceptance, shown in the response and in GET", async () => {
    const sent = await send({ validity_period: 600 });
    expect(sent.status).toBe(202);
    const end = await storedEnd(sent.body.message_id);
    expect(seconds(sent.body.created_at, end)).toBe(600);
    expect(sent.body.expires_at).toBe(end.toISOString());
    const got = await gw.request("GET", `/v1/sms/${sent.body.message_id}`, { key: account.key });
    expect(got.body.expires_at).toBe(end.toISOString());
  });

  it("takes the deployment's default when absent", async () => {
    const sent = await send({});
    expect(seconds(sent.body.created_at, await storedEnd(sent.body.message_id))).toBe(21600);
  });

  it("counts from scheduled_at for a scheduled message", async () => {
    const at = new Date(Date.now() + 3_600_000);
    at.setUTCMilliseconds(0);
    const sent = await send({ scheduled_at: at.toISOString(), validity_period: 120 });
    expect(sent.body.status).toBe("scheduled");
    expect(seconds(at, await storedEnd(sent.body.message_id))).toBe(120);
  });

  it.each([59, 259_201, 1.5, "3600", -60])(
    "refuses %p with VALIDATION_ERROR naming the field",
    async (value) => {
      const error = expectError(await send({ validity_period: value }), 400, "VALIDATION_ERROR");
      expect(JSON.stringify(error)).toContain("validity_period");
    },
  );

  it("accepts both bounds", async () => {
    for (const value of [60, 259_200]) expect((await send({ validity_period: value })).status).toBe(202);
  });

  it("takes one validity_period for a batch and another per item", async () => {
    const result = await bulk({
      validity_period: 900,
      messages: [
        { to: "+14155550101", message: "batch's" },
        { to: "+14155550102", message: "its own", validity_period: 300 },
        { to: "+14155550103", message: "none anywhere" },
      ],
    });
    expect(result.status).toBe(202);
    const [a, b, c] = result.body.messages.map((m: { message_id: string }) => m.message_id);
    const created = (
      await gw.db.pool.query<{ created_at: Date }>("SELECT created_at FROM messages WHERE id = $1", [a])
    ).rows[0]!.created_at;
    expect(seconds(created, await storedEnd(a))).toBe(900);
    expect(seconds(created, await storedEnd(b))).toBe(300);
    expect(seconds(created, await storedEnd(c))).toBe(900);

    const plain = await bulk({ messages: [{ to: "+14155550104", message: "default" }] });
    const id = plain.body.messages[0].message_id;
    expect(seconds(created, await storedEnd(id))).toBeGreaterThanOrEqual(21600);
  });

  it("refuses a batch with an item's validity_period out of range, as any schema error", async () => {
    const error = expectError(
      await bulk({ messages: [{ to: "+14155550101", message: "x", validity_period: 10 }] }),
      400,
      "VALIDATION_ERROR",
    );
    expect(JSON.stringify(error)).toContain("validity_period");
  });
});
