import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

// The OTP endpoints without a carrier: validation, errors, limits, idempotency and what
// is stored. The code itself is read from the carrier simulator in e2e/otp-pipeline.integration.test.ts.
let gw: TestGateway;
let acme: TestAccount;

beforeAll(async () => {
  gw = await startTestGateway({ OTP_SENDS_PER_WINDOW: "3" });
  acme = await gw.createAccount({ credits: 1000 });
});
afterAll(() => gw.stop());

const send = (body: unknown, key = acme.key, headers?: Record<string, string>) =>
  gw.request("POST", "/v1/otp/send", { key, body, headers });
const verify = (body: unknown, key = acme.key) => gw.request("POST", "/v1/otp/verify", { key, body });
let nextPhone = 2000;
const freshPhone = () => `+1415555${nextPhone++}`;

describe("POST /v1/otp/send", () => {
  it("answers 201 with the OTP, stores only an HMAC and a redacted text, and charges one credit", async () => {
    const phone = freshPhone();
    const response = await send({ phone: phone.replace("+1415", "+1 415 ") });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      otp_id: expect.stringMatching(/^otp_[0-9A-Z]{26}$/),
      status: "pending",
      phone,
      length: 6,
      expires_at: expect.any(String),
      message_id: expect.stringMatching(/^msg_/),
    });
    const lifetime = Date.parse(response.body.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(295_000);
    expect(lifetime).toBeLessThanOrEqual(300_000);
    const { rows } = await gw.db.pool.query(
      `SELECT m.body, m.source, m.otp_id, m.sender_id, m.body_sealed, o.code_hmac, o.max_attempts
       FROM messages m JOIN otps o ON o.message_id = m.id WHERE m.id = $1`,
      [response.body.message_id],
    );
    expect(rows[0]).toMatchObject({
      body: "Your verification code is ******",
      source: "otp",
      otp_id: response.body.otp_id,
      sender_id: "Verify",
      max_attempts: 5,
    });
    expect(rows[0].code_hmac).toHaveLength(32);
    expect(rows[0].body_sealed).toMatch(/^v1\./);
    const account = await gw.request("GET", "/v1/account", { key: acme.key });
    expect(account.body.balance).toBeLessThan(1000);
  });

  it("shows the OTP and its status in the message log, with the redacted text", async () => {
    const sent = await send({ phone: freshPhone(), length: 4, template: "Acme: {code} is your code" });
    const message = await gw.request("GET", `/v1/sms/${sent.body.message_id}`, { key: acme.key });
    expect(message.body).toMatchObject({
      source: "otp",
      message: "Acme: **** is your code",
      otp: { otp_id: sent.body.otp_id, status: "pending" },
    });
    const list = await gw.request("GET", `/v1/sms?to=${encodeURIComponent(sent.body.phone)}`, {
      key: acme.key,
    });
    expect(list.body.data[0].otp).toEqual({ otp_id: sent.body.otp_id, status: "pending" });
  });

  it("GET /v1/otp/{id} gives the status, never the code", async () => {
    const sent = await send({ phone: freshPhone(), length: 8, expiry: 30 });
    const got = await gw.request("GET", `/v1/otp/${sent.body.otp_id}`, { key: acme.key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      otp_id: sent.body.otp_id,
      status: "pending",
      phone: sent.body.phone,
      length: 8,
      attempts_remaining: 5,
      expires_at: sent.body.expires_at,
      verified_at: null,
      created_at: expect.any(String),
      message_id: sent.body.message_id,
    });
  });

  it.each([
    [{ phone: "+1415" }, 400, "INVALID_PHONE", "phone"],
    [{ phone: "14155552000" }, 400, "INVALID_PHONE", "phone"],
    [{}, 400, "VALIDATION_ERROR", "phone"],
    [{ phone: 14155552000 }, 400, "VALIDATION_ERROR", "phone"],
    [{ phone: "+14155552000", length: 3 }, 400, "VALIDATION_ERROR", "length"],
    [{ phone: "+14155552000", length: 9 }, 400, "VALIDATION_ERROR", "length"],
    [{ phone: "+14155552000", length: "6" }, 400, "VALIDATION_ERROR", "length"],
    [{ phone: "+14155552000", length: 6.5 }, 400, "VALIDATION_ERROR", "length"],
    [{ phone: "+14155552000", expiry: 29 }, 400, "VALIDATION_ERROR", "expiry"],
    [{ phone: "+14155552000", expiry: 3601 }, 400, "VALIDATION_ERROR", "expiry"],
    [{ phone: "+14155552000", template: "no placeholder" }, 400, "VALIDATION_ERROR", "template"],
    [{ phone: "+14155552000", template: "{code} and {code}" }, 400, "VALIDATION_ERROR", "template"],
    [{ phone: "+14155552000", template: "" }, 400, "VALIDATION_ERROR", "template"],
    [{ phone: "+14155552000", template: "{code} " + "ж".repeat(700) }, 400, "MESSAGE_TOO_LONG", "template"],
    [{ phone: "+14155552000", template: "{code} " + "a".repeat(160) }, 400, "MESSAGE_TOO_LONG", "template"],
    [{ phone: "+14155552000", template: "{code} " + "ж".repeat(70) }, 400, "MESSAGE_TOO_LONG", "template"],
    [{ phone: "+14155552000", sender_id: "NOT-OURS" }, 403, "INVALID_SENDER", "sender_id"],
    [{ phone: "+14155552000", code: "123456" }, 400, "VALIDATION_ERROR", "body"],
    [[], 400, "VALIDATION_ERROR", "body"],
  ])("refuses %j with %i %s on %s, writing nothing", async (body, status, code, field) => {
    const before = await gw.db.pool.query("SELECT count(*)::int AS n FROM otps");
    const error = expectError(await send(body), status, code);
    expect(error.field).toBe(field);
    const after = await gw.db.pool.query("SELECT count(*)::int AS n FROM otps");
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("sends from the account's own sender_id, where the text may take more than one segment", async () => {
    const long = `{code} ${"a".repeat(200)}`;
    const sent = await send({ phone: freshPhone(), sender_id: "ACME", template: long });
    expect(sent.status).toBe(201);
    const { rows } = await gw.db.pool.query("SELECT sender_id, segment_count FROM messages WHERE id = $1", [
      sent.body.message_id,
    ]);
    expect(rows).toEqual([{ sender_id: "ACME", segment_count: 2 }]);
  });

  it("says why a template is too long under the shared sender", async () => {
    const error = expectError(
      await send({ phone: freshPhone(), template: `{code} ${"a".repeat(160)}` }),
      400,
      "MESSAGE_TOO_LONG",
    );
    expect(error.message).toMatch(/one segment under the shared sender/);
  });

  it("refuses a body that is not JSON, or not sent as JSON", async () => {
    expectError(
      await gw.request("POST", "/v1/otp/send", {
        key: acme.key,
        rawBody: "{phone:",
        headers: { "content-type": "application/json" },
      }),
      400,
      "INVALID_JSON",
    );
    expectError(
      await gw.request("POST", "/v1/otp/send", {
        key: acme.key,
        rawBody: "phone=+14155552000",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expectError(
      await gw.request("POST", "/v1/otp/send", { body: { phone: "+14155552000" } }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("needs the otp:send permission", async () => {
    const readOnly = await gw.createAccount({ permissions: ["sms:read", "otp:verify"] });
    expectError(await send({ phone: freshPhone() }, readOnly.key), 403, "FORBIDDEN");
  });

  it("refuses without credits: no OTP, and the try does not count against the send limit", async () => {
    const poor = await gw.createAccount({ credits: 0 });
    const phone = freshPhone();
    for (let i = 0; i < 4; i++) expectError(await send({ phone }, poor.key), 402, "INSUFFICIENT_CREDITS");
    const { rows } = await gw.db.pool.query("SELECT count(*)::int AS n FROM otps WHERE account_id = $1", [
      poor.accountId,
    ]);
    expect(rows[0].n).toBe(0);
    await gw.db.prisma.account.update({ where: { id: poor.accountId }, data: { balance: 10n } });
    expect((await send({ phone }, poor.key)).status).toBe(201);
  });

  it("limits sends per phone and account (3 per window here) with Retry-After; other phones and accounts are not affected", async () => {
    const phone = freshPhone();
    for (let i = 0; i < 3; i++) expect((await send({ phone })).status).toBe(201);
    const refused = await send({ phone });
    const error = expectError(refused, 429, "OTP_SEND_LIMIT");
    expect(error.field).toBe("phone");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(refused.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect((await send({ phone: freshPhone() })).status).toBe(201);
    const other = await gw.createAccount();
    expect((await send({ phone }, other.key)).status).toBe(201);
  });

  it("a newer OTP cancels the pending one of the same phone, not those of other phones or accounts", async () => {
    const phone = freshPhone();
    const first = await send({ phone });
    const elsewhere = await send({ phone: freshPhone() });
    const other = await gw.createAccount();
    const otherAccounts = await send({ phone }, other.key);
    const second = await send({ phone });
    const statusOf = async (id: string, key = acme.key) =>
      (await gw.request("GET", `/v1/otp/${id}`, { key })).body.status;
    expect(await statusOf(first.body.otp_id)).toBe("canceled");
    expect(await statusOf(second.body.otp_id)).toBe("pending");
    expect(await statusOf(elsewhere.body.otp_id)).toBe("pending");
    expect(await statusOf(otherAccounts.body.otp_id, other.key)).toBe("pending");
    const error = expectError(
      await verify({ otp_id: first.body.otp_id, code: "123456" }),
      410,
      "OTP_EXPIRED",
    );
    expect(error.message).toMatch(/newer/);
  });

  it("two OTPs sent at once to one phone leave exactly one pending", async () => {
    const phone = freshPhone();
    const [a, b] = await Promise.all([send({ phone }), send({ phone })]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const { rows } = await gw.db.pool.query(
      "SELECT status, count(*)::int AS n FROM otps WHERE phone = $1 AND account_id = $2 GROUP BY status ORDER BY status",
      [phone, acme.accountId],
    );
    expect(rows).toEqual([
      { status: "pending", n: 1 },
      { status: "canceled", n: 1 },
    ]);
  });

  it("replays the first answer for the same Idempotency-Key: one OTP, one SMS", async () => {
    const body = { phone: freshPhone() };
    const first = await send(body, acme.key, { "idempotency-key": "otp-login-1" });
    const again = await send(body, acme.key, { "idempotency-key": "otp-login-1" });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const { rows } = await gw.db.pool.query("SELECT count(*)::int AS n FROM otps WHERE phone = $1", [
      body.phone,
    ]);
    expect(rows[0].n).toBe(1);
  });
});

describe("POST /v1/otp/verify", () => {
  it("counts a wrong code: 200 verified false with the attempts left", async () => {
    const sent = await send({ phone: freshPhone(), length: 4 });
    // 4 digits but "00000" has 5: a code of the wrong length is a wrong code, not a bad request.
    const first = await verify({ otp_id: sent.body.otp_id, code: "00000" });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      otp_id: sent.body.otp_id,
      verified: false,
      status: "pending",
      attempts_remaining: 4,
    });
  });

  it.each([
    [{}, 400, "VALIDATION_ERROR", "otp_id"],
    [{ otp_id: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y" }, 400, "VALIDATION_ERROR", "code"],
    [{ otp_id: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y", code: 123456 }, 400, "VALIDATION_ERROR", "code"],
    [{ otp_id: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y", code: "12a456" }, 400, "VALIDATION_ERROR", "code"],
    [{ otp_id: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y", code: "123456789" }, 400, "VALIDATION_ERROR", "code"],
    [{ otp_id: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y", code: "" }, 400, "VALIDATION_ERROR", "code"],
    [{ otp_id: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y", code: "123456", extra: 1 }, 400, "VALIDATION_ERROR", "body"],
    [{ otp_id: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y", code: "123456" }, 404, "NOT_FOUND", undefined],
    [{ otp_id: "msg_01JD6Z8Q4G2M0F3T6S8V9W0X1Y", code: "123456" }, 404, "NOT_FOUND", undefined],
    [{ otp_id: "'; DROP TABLE otps; --", code: "123456" }, 404, "NOT_FOUND", undefined],
  ])("refuses %j with %i %s", async (body, status, code, field) => {
    const error = expectError(await verify(body), status, code);
    expect(error.field).toBe(field);
  });

  it("an OTP of another account is not found, and the guess is not counted", async () => {
    const sent = await send({ phone: freshPhone() });
    const other = await gw.createAccount();
    expectError(await verify({ otp_id: sent.body.otp_id, code: "123456" }, other.key), 404, "NOT_FOUND");
    expectError(await gw.request("GET", `/v1/otp/${sent.body.otp_id}`, { key: other.key }), 404, "NOT_FOUND");
    const { rows } = await gw.db.pool.query("SELECT attempts FROM otps WHERE id = $1", [sent.body.otp_id]);
    expect(rows[0].attempts).toBe(0);
  });

  it("after 5 wrong codes the OTP fails: the 5th is 200 status failed, then 429 OTP_MAX_ATTEMPTS with Retry-After", async () => {
    const sent = await send({ phone: freshPhone(), expiry: 120 });
    const { rows } = await gw.db.pool.query("SELECT code_hmac FROM otps WHERE id = $1", [sent.body.otp_id]);
    expect(rows).toHaveLength(1);
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push((await verify({ otp_id: sent.body.otp_id, code: "0000000" })).body);
    expect(answers.map((a) => [a.status, a.attempts_remaining])).toEqual([
      ["pending", 4],
      ["pending", 3],
      ["pending", 2],
      ["pending", 1],
      ["failed", 0],
    ]);
    const locked = await verify({ otp_id: sent.body.otp_id, code: "0000000" });
    expectError(locked, 429, "OTP_MAX_ATTEMPTS");
    const retryAfter = Number(locked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
  });

  it("an OTP past its expiry answers 410 OTP_EXPIRED and reads as expired", async () => {
    const sent = await send({ phone: freshPhone() });
    await gw.db.pool.query("UPDATE otps SET expires_at = now() - interval '1 second' WHERE id = $1", [
      sent.body.otp_id,
    ]);
    expectError(await verify({ otp_id: sent.body.otp_id, code: "123456" }), 410, "OTP_EXPIRED");
    expect((await gw.request("GET", `/v1/otp/${sent.body.otp_id}`, { key: acme.key })).body.status).toBe(
      "expired",
    );
    const { rows } = await gw.db.pool.query("SELECT attempts FROM otps WHERE id = $1", [sent.body.otp_id]);
    expect(rows[0].attempts).toBe(0);
  });

  it("needs the otp:verify permission", async () => {
    const sender = await gw.createAccount({ permissions: ["otp:send"] });
    const sent = await send({ phone: freshPhone() }, sender.key);
    expectError(await verify({ otp_id: sent.body.otp_id, code: "123456" }, sender.key), 403, "FORBIDDEN");
  });
});

describe("OpenAPI", () => {
  it("documents the OTP endpoints from the same schemas", async () => {
    const doc = (await gw.request("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/v1/otp/send", "/v1/otp/verify", "/v1/otp/{otp_id}"]),
    );
    expect(doc.components.schemas.SendOtpRequest.properties.length).toMatchObject({ minimum: 4, maximum: 8 });
  });
});
