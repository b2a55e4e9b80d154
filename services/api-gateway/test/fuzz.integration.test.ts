import fc from "fast-check";
import { ERROR_STATUS, type ErrorCode } from "@sms/errors";
import { waitFor } from "@sms/testing";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";
import {
  FUZZ,
  MAX_BATCH,
  SENDER,
  VALID_ITEM,
  VALID_SEND,
  deepNesting,
  jsonish,
  objectText,
  oddString,
  valueText,
  type WireRequest,
} from "./fuzz-values";
import {
  brokenBulkBody,
  brokenSendBody,
  isRecord,
  jsonRequest,
  jsonTextRequest,
  mightAcceptBulk,
  mightAcceptSend,
  parses,
  rawRequest,
  validText,
} from "./fuzz-bodies";

/**
 * Fuzzing every POST of the real gateway over HTTP (docs/api.md#errors): whatever the body,
 * a request that cannot be accepted gets a documented 4xx error body and leaves
 * nothing behind: no message, batch, ledger row, idempotency record or balance change.
 *
 * The generators can't produce an acceptable request: each body is either broken by
 * construction (a valid body with at least one field broken) or filtered by a
 * conservative oracle (anything that might pass the schema with the one authorized
 * sender is dropped), so "nothing persisted" means something.
 *
 * Set FUZZ_SEED to replay a failing run.
 */

// ---------- the gateway under test ----------

describe("fuzzed POSTs against a real gateway", () => {
  let gw: TestGateway;
  let account: TestAccount;
  let other: TestAccount;
  let ownScheduled: string;
  let othersScheduled: string;

  beforeAll(async () => {
    gw = await startTestGateway();
    account = await gw.createAccount({
      credits: 1000,
      requestsPerSecond: 1_000_000,
      maxBatchSize: MAX_BATCH,
      senders: [SENDER],
    });
    other = await gw.createAccount({ credits: 1000, senders: [SENDER] });
    const at = new Date(Date.now() + 7 * 86400_000).toISOString();
    ownScheduled = await scheduleOne(account, at);
    othersScheduled = await scheduleOne(other, at);
  });
  afterAll(() => gw.stop());

  async function scheduleOne(owner: TestAccount, at: string): Promise<string> {
    const response = await gw.request("POST", "/v1/sms/send", {
      key: owner.key,
      body: { ...VALID_SEND, scheduled_at: at },
    });
    expect(response.status).toBe(202);
    return response.body.message_id as string;
  }

  async function post(path: string, request: WireRequest) {
    const headers: Record<string, string> = { authorization: `Bearer ${account.key}` };
    if (request.contentType) headers["content-type"] = request.contentType;
    if (request.idempotencyKey) headers["idempotency-key"] = request.idempotencyKey;
    const response = await fetch(gw.url + path, { method: "POST", headers, body: request.body });
    const text = await response.text();
    const parsed = parses(text);
    return { status: response.status, body: parsed.ok ? parsed.value : text, headers: response.headers };
  }

  /** Everything an accepted request or a cancel would change. */
  async function persisted() {
    const where = { accountId: account.accountId };
    const { prisma } = gw.db;
    const [messages, batches, ledger, idempotency, events, balance, scheduled] = await Promise.all([
      prisma.message.count({ where }),
      prisma.batch.count({ where }),
      prisma.creditLedgerEntry.count({ where }),
      prisma.idempotencyRecord.count({ where }),
      prisma.messageEvent.count({ where: { message: where } }),
      prisma.account.findUniqueOrThrow({ where: { id: account.accountId } }).then((a) => a.balance),
      prisma.message.findMany({
        where: { id: { in: [ownScheduled, othersScheduled] } },
        select: { id: true, status: true },
        orderBy: { id: "asc" },
      }),
    ]);
    return { messages, batches, ledger, idempotency, events, balance, scheduled };
  }

  /** The property: a documented 4xx error body that names this request, never a 5xx. */
  function expectDocumentedError(
    response: { status: number; body: unknown; headers: Headers },
    request: WireRequest,
    seen: Map<string, number>,
  ) {
    const context = `${request.kind} ${(request.path ?? "").slice(0, 100)}: ${String(request.body).slice(0, 200)}`;
    const status = response.status >= 400 && response.status < 500 ? "4xx" : response.status;
    expect({ context, status }).toEqual({ context, status: "4xx" });
    const error = isRecord(response.body) && isRecord(response.body.error) ? response.body.error : {};
    const code = String(error.code) as ErrorCode;
    expect({ context, code, status: ERROR_STATUS[code] }).toEqual({ context, code, status: response.status });
    expect(typeof error.message === "string" && error.message.trim().length > 0).toBe(true);
    expect(error.request_id).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(response.headers.get("x-request-id")).toBe(error.request_id);
    seen.set(code, (seen.get(code) ?? 0) + 1);
  }

  async function fuzz(path: string, requests: fc.Arbitrary<WireRequest>): Promise<Map<string, number>> {
    const before = await persisted();
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        expectDocumentedError(await post(request.path ?? path, request), request, seen);
      }),
      FUZZ,
    );
    // No wait needed: a key is claimed, and a message committed, before the response is sent.
    expect(await persisted()).toEqual(before);
    return seen;
  }

  it("answers any unacceptable POST /v1/sms/send with a documented 4xx and persists nothing", async () => {
    const seen = await fuzz(
      "/v1/sms/send",
      fc.oneof(
        { weight: 3, arbitrary: jsonRequest("broken send", brokenSendBody) },
        {
          weight: 2,
          arbitrary: jsonTextRequest(
            "JSON text",
            fc.oneof(
              objectText(["to", "message", "sender_id", "scheduled_at"], valueText),
              valueText,
              deepNesting,
            ),
            mightAcceptSend,
          ),
        },
        {
          weight: 1,
          arbitrary: jsonRequest(
            "JSON value",
            jsonish.filter((v) => !mightAcceptSend(v)),
          ),
        },
        { weight: 2, arbitrary: rawRequest },
      ),
    );
    // The runs reached every layer: the body parser, the schema, the sender check and the phone check.
    expect([...seen.keys()]).toEqual(
      expect.arrayContaining([
        "UNSUPPORTED_MEDIA_TYPE",
        "INVALID_JSON",
        "VALIDATION_ERROR",
        "INVALID_SENDER",
        "INVALID_PHONE",
      ]),
    );
  });

  it("answers any unacceptable POST /v1/sms/bulk with a documented 4xx and persists nothing", async () => {
    const items = `[${[VALID_ITEM, { to: "+1", message: "x" }].map((i) => JSON.stringify(i)).join(",")}]`;
    const seen = await fuzz(
      "/v1/sms/bulk",
      fc.oneof(
        { weight: 3, arbitrary: jsonRequest("broken bulk", brokenBulkBody) },
        {
          weight: 2,
          arbitrary: jsonTextRequest(
            "JSON text",
            fc.oneof(
              objectText(["sender_id", "messages"], fc.oneof(valueText, fc.constant(items))),
              valueText,
              deepNesting,
            ),
            mightAcceptBulk,
          ),
        },
        {
          weight: 1,
          arbitrary: jsonRequest(
            "JSON value",
            jsonish.filter((v) => !mightAcceptBulk(v)),
          ),
        },
        { weight: 2, arbitrary: rawRequest },
      ),
    );
    expect([...seen.keys()]).toEqual(
      expect.arrayContaining([
        "UNSUPPORTED_MEDIA_TYPE",
        "INVALID_JSON",
        "VALIDATION_ERROR",
        "INVALID_SENDER",
        "BATCH_TOO_LARGE",
      ]),
    );
  });

  it("answers any unacceptable POST /v1/sms/{id}/cancel with a documented 4xx and cancels nothing", async () => {
    // The account's own scheduled message gets only bodies that must be refused before the cancel
    // runs; any JSON body goes to ids that are not the account's: another account's, or made up.
    const madeUpId = fc
      .oneof(
        fc.stringMatching(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/),
        // Short ids: a URL over Node's 16 KB header limit gets Node's bare 431, before the app.
        oddString.filter((s) => s.length > 0),
      )
      .filter((id) => id !== ownScheduled);
    const target = (id: string) => `/v1/sms/${encodePathSegment(id)}/cancel`;
    const seen = await fuzz(
      target(ownScheduled),
      fc.oneof(
        { weight: 1, arbitrary: rawRequest },
        {
          weight: 2,
          arbitrary: fc
            .tuple(
              fc.oneof(fc.constant(othersScheduled), madeUpId),
              fc.oneof(
                { weight: 2, arbitrary: jsonRequest("JSON value", jsonish) },
                { weight: 1, arbitrary: rawRequest },
              ),
            )
            .map(([id, request]) => ({ ...request, path: target(id) })),
        },
      ),
    );
    expect([...seen.keys()]).toEqual(
      expect.arrayContaining(["UNSUPPORTED_MEDIA_TYPE", "INVALID_JSON", "NOT_FOUND"]),
    );
  });

  describe("hand-written bodies", () => {
    async function refused(request: WireRequest, status: number, code: ErrorCode) {
      const before = await persisted();
      expectError(await post("/v1/sms/send", request), status, code);
      expect(await persisted()).toEqual(before);
    }

    it("refuses a 2 MiB body with 413 PAYLOAD_TOO_LARGE and accepts nothing", async () => {
      await refused(
        {
          kind: "2 MiB",
          body: JSON.stringify({ ...VALID_SEND, message: "a".repeat(2 * 1024 * 1024) }),
          contentType: "application/json",
        },
        413,
        "PAYLOAD_TOO_LARGE",
      );
    });

    it("refuses a valid send labelled text/plain with 415 UNSUPPORTED_MEDIA_TYPE and accepts nothing", async () => {
      await refused(
        { kind: "text/plain", body: validText, contentType: "text/plain" },
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
    });

    it("refuses the body `{` with 400 INVALID_JSON", async () => {
      await refused({ kind: "{", body: "{", contentType: "application/json" }, 400, "INVALID_JSON");
    });

    it('refuses the JSON string literal "hi" with 400 INVALID_JSON: the parser is strict and takes only objects and arrays', async () => {
      await refused(
        { kind: "string literal", body: '"hi"', contentType: "application/json" },
        400,
        "INVALID_JSON",
      );
    });

    it("refuses a NUL character in the message text with 400 VALIDATION_ERROR before it reaches PostgreSQL", async () => {
      const body = JSON.stringify({ ...VALID_SEND, message: "a\u0000b" });
      await refused({ kind: "NUL", body, contentType: "application/json" }, 400, "VALIDATION_ERROR");
    });

    it("answers a NUL in a message id (/v1/sms/%00/cancel) with 404 NOT_FOUND", async () => {
      const before = await persisted();
      expectError(
        await post("/v1/sms/%00/cancel", { kind: "NUL id", body: "{}", contentType: "application/json" }),
        404,
        "NOT_FOUND",
      );
      expect(await persisted()).toEqual(before);
    });

    it("ignores a UTF-8 byte order mark before valid JSON, as RFC 8259 §8.1 allows", async () => {
      const bomAccount = await gw.createAccount({ senders: [SENDER] });
      const response = await gw.request("POST", "/v1/sms/send", {
        key: bomAccount.key,
        rawBody: `\ufeff${validText}`,
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(202);
    });
  });

  // Bugs this fuzzer found (all fixed): each test states the documented behaviour.
  describe("regressions found by fuzzing", () => {
    async function expectA4xxWithNothingPersisted(path: string, request: WireRequest) {
      const before = await persisted();
      const response = await post(path, request);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(await persisted()).toEqual(before);
    }

    it("answers a malformed percent-encoding in the path (/v1/sms/%E0%A4%A/cancel) with 400, not 500 INTERNAL", async () => {
      await expectA4xxWithNothingPersisted("/v1/sms/%E0%A4%A/cancel", {
        kind: "bad escape",
        body: "{}",
        contentType: "application/json",
      });
    });

    it("answers a body that is not the gzip its Content-Encoding claims with 400, not 500 INTERNAL", async () => {
      const response = await fetch(`${gw.url}/v1/sms/send`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${account.key}`,
          "content-type": "application/json",
          "content-encoding": "gzip",
        },
        body: validText,
      });
      expect(response.status).toBe(400);
    });

    it("replays the first 4xx for a repeated Idempotency-Key even when that response echoes a NUL from an unknown field's name", async () => {
      const request: WireRequest = {
        kind: "NUL in a key",
        body: JSON.stringify({ ...VALID_SEND, "a\u0000b": 1 }),
        contentType: "application/json",
        idempotencyKey: "nul-echo",
      };
      const first = await post("/v1/sms/send", request);
      expectError(first, 400, "VALIDATION_ERROR");
      // The response is stored after it is sent: wait for it.
      const where = {
        accountId_apiKeyId_key: { accountId: account.accountId, apiKeyId: account.keyId, key: "nul-echo" },
      };
      await waitFor(
        async () => (await gw.db.prisma.idempotencyRecord.findUnique({ where }))?.responseStatus === 400,
        { timeoutMs: 3000, what: "the stored 400" },
      );
      // A replay is the first response as it was (its request_id included); X-Request-Id names this request.
      const replay = await post("/v1/sms/send", request);
      expect(replay.status).toBe(400);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body).toEqual(first.body);
    });

    it("says a field of the wrong type has the wrong type, not that it is missing", async () => {
      const error = expectError(
        await post("/v1/sms/send", {
          kind: "to: 5",
          body: JSON.stringify({ ...VALID_SEND, to: 5 }),
          contentType: "application/json",
        }),
        400,
        "VALIDATION_ERROR",
      );
      expect(error.message).not.toMatch(/required/);
    });
  });
});

/** Percent-encodes every UTF-8 byte that is not unreserved (encodeURIComponent throws on lone surrogates). */
function encodePathSegment(value: string): string {
  return [...Buffer.from(value, "utf8")]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}
