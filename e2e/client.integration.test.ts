import { generateSecret, signWebhook } from "@sms/webhook-signing";
import { startTestGateway, type TestGateway } from "@sms/api-gateway/test/harness";
import {
  createSmsClient,
  SmsApiError,
  verifyWebhook,
  WebhookVerificationError,
  type SmsClient,
} from "@sms/client";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

/** A client whose every answer (status) is recorded, in order. */
function recordingClient(key: string, options: Parameters<typeof createSmsClient>[0]["retry"] = {}) {
  const seen: { method: string; url: string; status: number; key: string | null; at: number }[] = [];
  const client = createSmsClient({
    baseUrl: gw.url,
    apiKey: key,
    retry: options,
    fetch: async (request) => {
      const response = await fetch(request);
      seen.push({
        method: request.method,
        url: request.url,
        status: response.status,
        key: request.headers.get("idempotency-key"),
        at: Date.now(),
      });
      return response;
    },
  });
  return { client, seen };
}

async function rejection(call: Promise<unknown>): Promise<SmsApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SmsApiError);
  return error as SmsApiError;
}

describe("@sms/client against the running gateway", () => {
  let client: SmsClient;
  let seen: ReturnType<typeof recordingClient>["seen"];
  beforeAll(async () => {
    ({ client, seen } = recordingClient((await gw.createAccount({ credits: 1000 })).key));
  });

  it("calls every operation, typed from the document", async () => {
    const sent = await client.sendSms({ to: "+14155550100", message: "Hello", sender_id: "ACME" });
    expect(sent).toMatchObject({ status: "queued", segments: 1, encoding: "GSM-7", priority: "normal" });
    const message = await client.getMessage(sent.message_id);
    expect(message.history.map((h) => h.status)).toEqual(["queued"]);

    const bulk = await client.sendBulk({
      sender_id: "ACME",
      messages: [
        { to: "+14155550101", message: "a" },
        { to: "12", message: "b" },
      ],
    });
    expect(bulk).toMatchObject({ accepted: 1, rejected: 1 });
    expect(bulk.errors[0]?.error.code).toBe("INVALID_PHONE");
    expect((await client.getBatch(bulk.batch_id)).counts.queued).toBe(1);
    expect((await client.listMessages({ batch_id: bulk.batch_id })).data).toHaveLength(1);
    const csv = await new Response(
      await client.exportMessages({
        since: new Date(Date.now() - 3_600_000).toISOString(),
        until: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    ).text();
    expect(csv.split("\r\n")[0]).toMatch(/^id,created_at,to,/);
    expect(csv).toContain(sent.message_id);

    const scheduled = await client.sendSms({
      to: "+14155550102",
      message: "Later",
      sender_id: "ACME",
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await client.cancelMessage(scheduled.message_id)).status).toBe("canceled");

    const otp = await client.sendOtp({ phone: "+14155550103" });
    expect(otp.status).toBe("pending");
    expect(await client.verifyOtp({ otp_id: otp.otp_id, code: "00000000" })).toMatchObject({
      verified: false,
      attempts_remaining: 4,
    });
    expect((await client.getOtp(otp.otp_id)).status).toBe("pending");

    const account = await client.getAccount();
    expect(account.sender_ids).toEqual(["ACME"]);
    expect(account.webhook).toBeNull();
    // Every POST carried an Idempotency-Key the caller did not have to make.
    const posts = seen.filter((s) => s.method === "POST");
    expect(posts).toHaveLength(6);
    expect(new Set(posts.map((p) => p.key)).size).toBe(6);
    expect(posts.every((p) => /^[0-9a-f-]{36}$/.test(p.key ?? ""))).toBe(true);
  });

  it("throws each documented error as SmsApiError with code, field, request id and status", async () => {
    const invalid = await rejection(client.sendSms({ to: "12", message: "x", sender_id: "ACME" }));
    expect(invalid).toMatchObject({ status: 400, code: "INVALID_PHONE", field: "to" });
    expect(invalid.requestId).toMatch(/^req_[0-9A-Z]{26}$/);
    const unknownField = { to: "+14155550100", message: "x", sender_id: "ACME", colour: "red" };
    expect(await rejection(client.sendSms(unknownField as never))).toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR",
    });
    expect(
      await rejection(client.sendSms({ to: "+14155550100", message: "x", sender_id: "OTHER" })),
    ).toMatchObject({ status: 403, code: "INVALID_SENDER", field: "sender_id" });
    expect(await rejection(client.getMessage("msg_01JD6Z8Q4G2M0F3T6S8V9W0X1Y"))).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    const queued = await client.sendSms({ to: "+14155550104", message: "now", sender_id: "ACME" });
    expect(await rejection(client.cancelMessage(queued.message_id))).toMatchObject({
      status: 409,
      code: "NOT_CANCELABLE",
    });
    await client.sendSms(
      { to: "+14155550105", message: "one", sender_id: "ACME" },
      { idempotencyKey: "k-1" },
    );
    expect(
      await rejection(
        client.sendSms({ to: "+14155550105", message: "two", sender_id: "ACME" }, { idempotencyKey: "k-1" }),
      ),
    ).toMatchObject({ status: 409, code: "IDEMPOTENCY_CONFLICT" });

    const wrongKey = createSmsClient({ baseUrl: gw.url, apiKey: "sk_live_nope" });
    expect(await rejection(wrongKey.getAccount())).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    const readOnly = createSmsClient({
      baseUrl: gw.url,
      apiKey: (await gw.createAccount({ permissions: ["sms:read"] })).key,
    });
    expect(await rejection(readOnly.getAccount())).toMatchObject({ status: 403, code: "FORBIDDEN" });
    const poor = createSmsClient({ baseUrl: gw.url, apiKey: (await gw.createAccount({ credits: 0 })).key });
    expect(
      await rejection(poor.sendSms({ to: "+14155550100", message: "x", sender_id: "ACME" })),
    ).toMatchObject({ status: 402, code: "INSUFFICIENT_CREDITS" });
  });

  it("pages through the message log with an async iterator, three pages of two", async () => {
    const { key } = await gw.createAccount();
    const { client: paged, seen: requests } = recordingClient(key);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (await paged.sendSms({ to: `+1415555020${i}`, message: `m${i}`, sender_id: "ACME" })).message_id,
      );
    const listed: string[] = [];
    for await (const message of paged.iterateMessages({ limit: 2 })) listed.push(message.message_id);
    expect(listed).toEqual([...ids].reverse());
    expect(requests.filter((r) => r.method === "GET")).toHaveLength(3);
  });
});

describe("retries", () => {
  it("retries a 429 after its Retry-After and returns the answer", async () => {
    const { key } = await gw.createAccount({ requestsPerSecond: 1 });
    const { client, seen } = recordingClient(key);
    // Calls until one meets the limit (two calls may straddle a window boundary); each still succeeds.
    for (let call = 0; call < 5 && !seen.some((s) => s.status === 429); call++) {
      expect((await client.getAccount()).sender_ids).toEqual(["ACME"]);
    }
    const refused = seen.findIndex((s) => s.status === 429);
    expect(refused).toBeGreaterThan(0);
    const retried = seen[refused + 1];
    expect(retried?.status).toBe(200);
    // Retry-After is whole seconds (at least 1): the client waited for it before asking again.
    expect(retried!.at - seen[refused]!.at).toBeGreaterThanOrEqual(900);
  });

  it("hands the 429 to the caller when retries are off, with its Retry-After", async () => {
    const { key } = await gw.createAccount({ requestsPerSecond: 1 });
    const { client } = recordingClient(key, { maxRetries: 0 });
    // Two calls at once, until a pair meets the limit: two calls one after the other can fall in
    // two windows (a slow first call on a loaded machine made one such pair miss it).
    let error: SmsApiError | undefined;
    for (let round = 0; round < 5 && error === undefined; round++) {
      const answers = await Promise.allSettled([client.getAccount(), client.getAccount()]);
      const refused = answers.find((answer) => answer.status === "rejected");
      if (refused) error = await rejection(Promise.reject(refused.reason));
    }
    expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(error!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it("retries a send whose answer was lost with the same Idempotency-Key: the first answer is replayed, one message", async () => {
    const { key } = await gw.createAccount();
    let lost = 0;
    const replayed: (string | null)[] = [];
    const client = createSmsClient({
      baseUrl: gw.url,
      apiKey: key,
      retry: { baseDelayMs: 10 },
      fetch: async (request) => {
        const response = await fetch(request);
        replayed.push(response.headers.get("idempotent-replayed"));
        // The gateway accepted the first attempt; its answer is lost on the way back.
        if (lost++ === 0) return new Response("upstream gone", { status: 503 });
        return response;
      },
    });
    const sent = await client.sendSms({ to: "+14155550300", message: "once", sender_id: "ACME" });
    expect(replayed).toEqual([null, "true"]);
    const log = await client.listMessages({ to: "+14155550300" });
    expect(log.data.map((m) => m.message_id)).toEqual([sent.message_id]);
  });
});

describe("verifyWebhook", () => {
  const secret = generateSecret();
  const body = JSON.stringify({
    event: "message.received",
    message_id: "in_01JD6Z8Q4G2M0F3T6S8V9W0X22",
    timestamp: new Date().toISOString(),
    data: {
      from: "+14155550100",
      to: "+14155550199",
      text: "STOP",
      encoding: "GSM-7",
      segments: 1,
      received_at: new Date().toISOString(),
    },
  });
  const headers = signWebhook({ secret, id: "evt_01JD6Z8Q4G2M0F3T6S8V9W0X23", timestamp: new Date(), body });

  it("returns the typed event of a delivery signed by the platform", () => {
    const event = verifyWebhook(secret, { ...headers }, body);
    expect(event.event).toBe("message.received");
    if (event.event === "message.received") expect(event.data.text).toBe("STOP");
  });

  it("rejects a tampered body, a wrong secret and a missing signature", () => {
    const tampered = body.replace("STOP", "START");
    expect(() => verifyWebhook(secret, { ...headers }, tampered)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(generateSecret(), { ...headers }, body)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, { "webhook-id": headers["webhook-id"] }, body)).toThrow(
      WebhookVerificationError,
    );
  });
});
