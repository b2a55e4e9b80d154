import fc from "fast-check";
import { ERROR_STATUS, type ErrorCode } from "@sms/errors";
import { waitFor } from "@sms/testing";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

/**
 * Fuzzing every POST of the real gateway over HTTP (DESIGN §3): whatever the body,
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

const SENDER = "ACME";
const MAX_BATCH = 50;
const VALID_SEND = { to: "+14155550100", message: "Hello from the fuzzer", sender_id: SENDER };
const VALID_ITEM = { to: "+14155550100", message: "Hello" };
const FUZZ = { numRuns: 500, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) };

/** One POST as it goes on the wire. */
interface WireRequest {
  /** What the generator built, for the failure report. */
  kind: string;
  /** Where it goes, when not the endpoint's usual path. */
  path?: string;
  body?: string | Uint8Array;
  contentType?: string;
  idempotencyKey?: string;
}

// ---------- strings, values and raw JSON text ----------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const oddCharacter = fc.constantFrom(
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\u200f",
  "\u200e",
  "\u202e",
  "\u2066",
  "\ufeff",
  "\ufffd",
  "\uffff",
  "\u0301",
  "😀",
  "👨‍👩‍👧",
  "🇺🇸",
  "𝕏",
  "ﷺ",
  "ع",
  "€",
  "ß",
  "\\",
  '"',
  "\n",
  "\r\n",
  "\t",
);
/** Short strings mixing any code point with lone surrogates, bidi marks, NUL and emoji. */
const oddString = fc
  .array(fc.oneof(fc.string({ unit: "binary", maxLength: 8 }), loneSurrogate, oddCharacter), {
    maxLength: 12,
  })
  .map((parts) => parts.join(""));
/** Up to ~200 KB: a short seed repeated (generating that many characters one by one is too slow). */
const hugeString = fc
  .tuple(
    fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), oddCharacter),
    fc.integer({ min: 1_000, max: 200_000 }),
  )
  .map(([seed, length]) => seed.repeat(Math.ceil(length / seed.length)).slice(0, length));
const anyString = fc.oneof({ weight: 6, arbitrary: oddString }, { weight: 1, arbitrary: hugeString });

/** Arbitrary JSON values whose keys include __proto__ and friends, and whose strings are odd. */
const jsonish: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -1, 2 ** 53, 1e308),
    anyString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc
      .array(
        fc.tuple(
          fc.oneof(oddString, fc.constantFrom("__proto__", "constructor", "to", "message")),
          tie("value"),
        ),
        { maxLength: 4 },
      )
      .map(ownProperties),
  ),
})).value;

/** An object whose entries are own properties, even "__proto__" (as JSON.parse makes them). */
function ownProperties(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries)
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/** Number literals JavaScript's own JSON.stringify never writes. */
const oddNumberText = fc.constantFrom(
  "1e400",
  "-1e400",
  "-0",
  "-0.0e-0",
  "1E+2",
  "4.9e-325",
  "123456789012345678901234567890",
  "0.1e1",
);
/** String literals with escapes: lone surrogates, NUL, bidi overrides. */
const escapedStringText = fc.constantFrom(
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"a\\u0000b"',
  '"\\u202e0010555514+"',
  '"\\u200f+14155550100"',
  '"\\uFEFF"',
);
/** Values as JSON text, including texts that JSON.stringify can't produce. */
const valueText = fc.oneof(
  jsonish.map((value) => JSON.stringify(value) ?? "null"),
  oddNumberText,
  escapedStringText,
  fc.constantFrom('"+14155550100"', `"${SENDER}"`, '"hello"', '"2030-01-01T00:00:00Z"', "null", "[]", "{}"),
);

/** JSON object text with keys biased to the real fields; keys may repeat (JSON.parse keeps the last). */
function objectText(keys: readonly string[], value: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.oneof(oddString, fc.constantFrom("__proto__", "constructor")) },
  );
  return fc
    .array(fc.tuple(key, value), { maxLength: 7 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
}

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 5000 }), fc.constantFrom("array", "object", "unclosed"))
  .map(([depth, shape]) =>
    shape === "array"
      ? "[".repeat(depth) + "]".repeat(depth)
      : shape === "object"
        ? '{"to":'.repeat(depth) + "1" + "}".repeat(depth)
        : "[".repeat(depth),
  );

// ---------- oracles: what might pass the schema (over-approximated, so it errs on dropping) ----------

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const onlyKeys = (value: Record<string, unknown>, allowed: readonly string[]) =>
  Object.keys(value).every((key) => allowed.includes(key));
const parses = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
};

function mightAcceptSend(value: unknown): boolean {
  if (!isRecord(value) || !onlyKeys(value, ["to", "message", "sender_id", "scheduled_at"])) return false;
  const scheduledOk =
    value.scheduled_at === undefined || value.scheduled_at === null || typeof value.scheduled_at === "string";
  return (
    typeof value.to === "string" &&
    typeof value.message === "string" &&
    value.sender_id === SENDER &&
    scheduledOk
  );
}

function mightAcceptBulk(value: unknown): boolean {
  if (!isRecord(value) || !onlyKeys(value, ["sender_id", "messages"]) || value.sender_id !== SENDER)
    return false;
  const { messages } = value;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_BATCH) return false;
  return messages.every(
    (item) =>
      isRecord(item) &&
      onlyKeys(item, ["to", "message"]) &&
      typeof item.to === "string" &&
      typeof item.message === "string",
  );
}

/** A JSON text body, dropped when `mightAccept` says it could be accepted. */
function jsonTextRequest(
  kind: string,
  text: fc.Arbitrary<string>,
  mightAccept: (value: unknown) => boolean,
): fc.Arbitrary<WireRequest> {
  return text
    .filter((body) => {
      const parsed = parses(body);
      return !parsed.ok || !mightAccept(parsed.value);
    })
    .map((body) => ({ kind, body, contentType: "application/json" }));
}

// ---------- broken-by-construction mutations of a valid body ----------

const wrongType = jsonish.filter((value) => typeof value !== "string");
/** Well-formed and short: passes the schema, so the checks behind it get exercised. */
const plainString = (maxLength: number) => fc.string({ unit: "grapheme", minLength: 1, maxLength });
/** A `to` string that is no phone number: fewer than 5 digits of any script. */
const notAPhone = fc
  .oneof(anyString, plainString(32), fc.constantFrom("", "+", "+1", "14155550100x", "+1 415", "tel:+1415"))
  .filter((s) => (s.match(/\p{Nd}/gu) ?? []).length < 5);
const notOurSender = fc
  .oneof(
    anyString,
    plainString(16),
    fc.constantFrom("", "acme", "ACME ", " ACME", "ACME\u0000", "ＡＣＭＥ", "A".repeat(17)),
  )
  .filter((s) => s !== SENDER);
const tooLongText = fc.oneof(
  fc.integer({ min: 1531, max: 20_000 }).map((n) => "a".repeat(n)), // MESSAGE_TOO_LONG: > 10 GSM-7 segments
  fc.integer({ min: 671, max: 5_000 }).map((n) => "ع".repeat(n)), // > 10 UCS-2 segments
  fc.integer({ min: 20_001, max: 200_000 }).map((n) => "a".repeat(n)), // over the schema's maximum
);
const badSchedule = fc.oneof(
  wrongType.filter((value) => value !== null),
  anyString.filter((s) => !/^\d{4}-\d{2}-\d{2}T/.test(s)),
  fc.constantFrom(
    "2000-01-01T00:00:00Z",
    "2999-01-01T00:00:00Z",
    "2030-01-01T10:00:00+02:00",
    "2030-02-30T10:00:00Z",
    "2030-01-01T10:00:00",
  ),
);
const unknownKey = fc
  .oneof(oddString, fc.constantFrom("__proto__", "constructor", "To", "text", "from"))
  .filter((key) => !["to", "message", "sender_id", "scheduled_at"].includes(key));

type Mutation = (body: Record<string, unknown>) => Record<string, unknown>;
const set =
  (key: string, value: unknown): Mutation =>
  (body) =>
    ownProperties([...Object.entries(body).filter(([k]) => k !== key), [key, value]]);
const remove =
  (key: string): Mutation =>
  (body) =>
    ownProperties(Object.entries(body).filter(([k]) => k !== key));

// Weighted toward strings that pass the schema, so the runs reach the checks behind it.
const breakSend: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: notAPhone.map((v) => set("to", v)) },
  { weight: 2, arbitrary: fc.oneof(tooLongText, fc.constant("")).map((v) => set("message", v)) },
  { weight: 3, arbitrary: notOurSender.map((v) => set("sender_id", v)) },
  { weight: 2, arbitrary: badSchedule.map((v) => set("scheduled_at", v)) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom("to", "message", "sender_id"), wrongType).map(([k, v]) => set(k, v)),
  },
  { weight: 1, arbitrary: fc.constantFrom("to", "message", "sender_id").map(remove) },
  { weight: 1, arbitrary: fc.tuple(unknownKey, jsonish).map(([k, v]) => set(k, v)) },
);
/** Changes that keep a body valid: odd but legal message texts, a future schedule. */
const harmlessSend: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .oneof(oddString, fc.string({ minLength: 1, maxLength: 300 }))
    .filter((s) => s.length > 0)
    .map((v) => set("message", v)),
  fc.constantFrom("+14155550100", "+1 (415) 555-0100", "+447911123456").map((v) => set("to", v)),
  fc.constant(set("scheduled_at", new Date(Date.now() + 86400_000).toISOString())),
  fc.constant(set("scheduled_at", null)),
);
/** A valid send with harmless changes, then at least one breaking change last (so it wins). */
const brokenSendBody = fc
  .tuple(fc.array(harmlessSend, { maxLength: 2 }), fc.array(breakSend, { minLength: 1, maxLength: 2 }))
  .map(([harmless, breaking]) =>
    [...harmless, ...breaking].reduce((body, mutate) => mutate(body), { ...VALID_SEND } as Record<
      string,
      unknown
    >),
  );

const anyItem = fc.oneof(
  fc.constant(VALID_ITEM),
  fc.record({
    to: fc.oneof(notAPhone, fc.constant("+14155550100")),
    message: fc.oneof(oddString, tooLongText, fc.constant("hi")),
  }),
  jsonish,
);
const invalidItem = fc.oneof(
  notAPhone.map((to) => ({ to, message: "hi" })),
  fc.constant({ to: "+14155550100", message: "" }),
  tooLongText.map((message) => ({ to: "+14155550100", message })),
);
/** Bulk bodies that must fail whole: a broken envelope (valid items and all), or no valid item. */
const brokenBulkBody: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .tuple(fc.oneof(wrongType, notOurSender), fc.array(anyItem, { minLength: 1, maxLength: 5 }))
    .map(([sender_id, messages]) => ({ sender_id, messages })),
  fc
    .tuple(notOurSender, fc.array(fc.constant(VALID_ITEM), { minLength: 1, maxLength: 5 }))
    .map(([sender_id, messages]) => ({ sender_id, messages })),
  fc.array(anyItem, { maxLength: 3 }).map((messages) => ({ messages })),
  fc.oneof(wrongType, fc.constant([])).map((messages) => ({ sender_id: SENDER, messages })),
  fc
    .tuple(
      fc.array(fc.constant(VALID_ITEM), { maxLength: 3 }),
      fc.oneof(wrongType, fc.constant({ ...VALID_ITEM, extra: 1 }), fc.constant({ to: "+14155550100" })),
      fc.array(fc.constant(VALID_ITEM), { maxLength: 3 }),
    )
    .map(([before, bad, after]) => ({ sender_id: SENDER, messages: [...before, bad, ...after] })),
  fc.array(invalidItem, { minLength: 1, maxLength: 8 }).map((messages) => ({ sender_id: SENDER, messages })),
  fc
    .integer({ min: MAX_BATCH + 1, max: MAX_BATCH * 3 })
    .map((n) => ({ sender_id: SENDER, messages: Array.from({ length: n }, () => VALID_ITEM) })),
  fc
    .tuple(
      unknownKey.filter((k) => k !== "messages"),
      jsonish,
    )
    .map(([k, v]) =>
      ownProperties([
        ["sender_id", SENDER],
        ["messages", [VALID_ITEM]],
        [k, v],
      ]),
    ),
);

// ---------- bodies that are not (acceptable) JSON at all ----------

const validText = JSON.stringify(VALID_SEND);
/** Bytes that strict JSON parsing refuses even after the BOM is stripped (an empty body counts as {}). */
const notJsonBytes = fc.uint8Array({ minLength: 1, maxLength: 4000 }).filter((bytes) => {
  const text = Buffer.from(bytes)
    .toString("utf8")
    .replace(/^\ufeff/, "");
  const parsed = parses(text);
  return text !== "" && (!/^\s*[[{]/.test(text) || !parsed.ok);
});
const truncated = fc.integer({ min: 1, max: validText.length - 1 }).map((n) => validText.slice(0, n));
const WRONG_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/jsonx",
  "application/merge-patch+json",
  "text/json",
];
const NON_UTF8_CHARSETS = [
  "latin1",
  "iso-8859-1",
  "windows-1252",
  "us-ascii",
  "shift_jis",
  "koi8-r",
  "x-bogus",
  "utf8",
];

/** Raw requests no gateway may accept, whatever the endpoint: each carries an Idempotency-Key that must not be claimed. */
const rawRequest: fc.Arbitrary<WireRequest> = fc
  .tuple(
    fc.oneof(
      notJsonBytes.map((body): WireRequest => ({
        kind: "random bytes",
        body,
        contentType: "application/json",
      })),
      truncated.map((body): WireRequest => ({
        kind: "truncated JSON",
        body,
        contentType: "application/json",
      })),
      truncated.map((body): WireRequest => ({
        kind: "BOM + truncated JSON",
        body: `\ufeff${body}`,
        contentType: "application/json; charset=utf-8",
      })),
      fc.constantFrom(...NON_UTF8_CHARSETS).map((charset): WireRequest => ({
        kind: "non-UTF-8 charset",
        body: validText,
        contentType: `application/json; charset=${charset}`,
      })),
      fc
        .constantFrom(...WRONG_TYPES)
        .map((contentType): WireRequest => ({ kind: "wrong Content-Type", body: validText, contentType })),
      fc.constant<WireRequest>({ kind: "no Content-Type", body: Buffer.from(validText) }),
      fc
        .constantFrom(
          "[",
          "{",
          "{]",
          "]",
          "'x'",
          '"hi"',
          "1",
          "true",
          "null",
          "{,}",
          '{"to":}',
          "NaN",
          "{} {}",
          validText + ",",
        )
        .map((body): WireRequest => ({ kind: "not a JSON object", body, contentType: "application/json" })),
    ),
    fc.string({ minLength: 1, maxLength: 20, unit: "grapheme-ascii" }),
  )
  .map(([request, key]) => ({ ...request, idempotencyKey: `fuzz-${key.replace(/[^\x21-\x7e]/g, "_")}` }));

/** An Idempotency-Key the gateway refuses (so it never claims one): a space inside, or too long. */
const refusedKey = fc.oneof(fc.constant("a b"), fc.constant("k".repeat(256)), fc.constant("x\ty"));

function jsonRequest(kind: string, body: fc.Arbitrary<unknown>): fc.Arbitrary<WireRequest> {
  return fc
    .tuple(
      body,
      fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: refusedKey }),
    )
    .map(([value, key]) => ({
      kind,
      body: JSON.stringify(value) ?? "null",
      contentType: "application/json",
      ...(key ? { idempotencyKey: key } : {}),
    }));
}

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
      const where = { accountId_key: { accountId: account.accountId, key: "nul-echo" } };
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
