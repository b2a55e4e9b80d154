// Request bodies for fuzz.integration.test.ts that must never be accepted: what might pass the schema
// (over-approximated, so the property never sees a valid body), valid bodies broken on
// purpose, and bytes that are not acceptable JSON at all.
import fc from "fast-check";
import {
  SENDER,
  MAX_BATCH,
  VALID_SEND,
  VALID_ITEM,
  oddString,
  anyString,
  jsonish,
  ownProperties,
  type WireRequest,
} from "./fuzz-values";
// ---------- oracles: what might pass the schema (over-approximated, so it errs on dropping) ----------

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const onlyKeys = (value: Record<string, unknown>, allowed: readonly string[]) =>
  Object.keys(value).every((key) => allowed.includes(key));
export const parses = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
};

export function mightAcceptSend(value: unknown): boolean {
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

export function mightAcceptBulk(value: unknown): boolean {
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
export function jsonTextRequest(
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
/** JSON.stringify writes NaN and ±Infinity as null and leaves undefined out: both mean "no schedule". */
const writtenAsNoSchedule = (value: unknown) => (JSON.stringify(value) ?? "null") === "null";
const badSchedule = fc.oneof(
  wrongType.filter((value) => !writtenAsNoSchedule(value)),
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
export const brokenSendBody = fc
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
export const brokenBulkBody: fc.Arbitrary<unknown> = fc.oneof(
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

export const validText = JSON.stringify(VALID_SEND);
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
export const rawRequest: fc.Arbitrary<WireRequest> = fc
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

export function jsonRequest(kind: string, body: fc.Arbitrary<unknown>): fc.Arbitrary<WireRequest> {
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
