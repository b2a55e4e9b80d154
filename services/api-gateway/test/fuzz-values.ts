// Random values for fuzz.integration.test.ts: odd strings, JSON-ish values and raw JSON text.
import fc from "fast-check";

export const SENDER = "ACME";
export const MAX_BATCH = 50;
export const VALID_SEND = { to: "+14155550100", message: "Hello from the fuzzer", sender_id: SENDER };
export const VALID_ITEM = { to: "+14155550100", message: "Hello" };
export const FUZZ = {
  numRuns: 500,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
};

/** One POST as it goes on the wire. */
export interface WireRequest {
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
export const oddString = fc
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
export const anyString = fc.oneof({ weight: 6, arbitrary: oddString }, { weight: 1, arbitrary: hugeString });

/** Arbitrary JSON values whose keys include __proto__ and friends, and whose strings are odd. */
export const jsonish: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
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
export function ownProperties(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
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
export const valueText = fc.oneof(
  jsonish.map((value) => JSON.stringify(value) ?? "null"),
  oddNumberText,
  escapedStringText,
  fc.constantFrom('"+14155550100"', `"${SENDER}"`, '"hello"', '"2030-01-01T00:00:00Z"', "null", "[]", "{}"),
);

/** JSON object text with keys biased to the real fields; keys may repeat (JSON.parse keeps the last). */
export function objectText(keys: readonly string[], value: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.oneof(oddString, fc.constantFrom("__proto__", "constructor")) },
  );
  return fc
    .array(fc.tuple(key, value), { maxLength: 7 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
}

export const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 5000 }), fc.constantFrom("array", "object", "unclosed"))
  .map(([depth, shape]) =>
    shape === "array"
      ? "[".repeat(depth) + "]".repeat(depth)
      : shape === "object"
        ? '{"to":'.repeat(depth) + "1" + "}".repeat(depth)
        : "[".repeat(depth),
  );
