import fc from "fast-check";
import { GSM7_CHARACTERS } from "./gsm7-alphabet";
import { decodeGsm7 } from "./gsm7";
import { analyzeText, splitMessage, type SmsPart } from "./segment";
import { fillBitsAfterUdh, packSeptets } from "./septet-packing";
import { decodeUcs2 } from "./ucs2";

const gsmChar = fc.constantFrom(...GSM7_CHARACTERS);
const EXTENSION_CHARACTERS = "€[]{}\\^~|\f";
const extensionChar = fc.constantFrom(...EXTENSION_CHARACTERS);
const bmpChar = fc
  .integer({ min: 0, max: 0xffff })
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map((c) => String.fromCharCode(c));
const astralChar = fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c));
const emoji = fc.constantFrom("😀", "👍", "🚚", "🇫🇷", "👨‍👩‍👧");

// size "max": without it fast-check keeps arrays to about 10 items, which never reaches a second part.
const textOf = (char: fc.Arbitrary<string>, maxLength = 1600) =>
  fc.array(char, { maxLength, size: "max" }).map((chars) => chars.join(""));

/** Strings that reach several parts, weighted toward boundary trouble: extension characters and surrogate pairs. */
const texts = fc.oneof(
  textOf(gsmChar),
  textOf(fc.oneof({ weight: 3, arbitrary: gsmChar }, { weight: 1, arbitrary: extensionChar })),
  textOf(fc.oneof(bmpChar, astralChar), 700),
  fc.string({ unit: "binary", maxLength: 700, size: "max" }),
  textOf(
    fc.oneof(
      { weight: 6, arbitrary: gsmChar },
      { weight: 1, arbitrary: emoji },
      { weight: 1, arbitrary: astralChar },
    ),
  ),
);

const runs = { numRuns: 300 };

function decodePayload(part: SmsPart): string {
  return part.dataCoding === 0x00 ? decodeGsm7(part.payload) : decodeUcs2(part.payload);
}

describe("splitMessage properties", () => {
  it("re-joins the decoded parts to the original text", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const parts = splitMessage(text, { reference: 7 });
        expect(parts.map(decodePayload).join("")).toBe(text);
        expect(parts.map((p) => p.text).join("")).toBe(text);
      }),
      runs,
    );
  });

  it("produces as many parts as analyzeText counts", () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(splitMessage(text, { reference: 0 })).toHaveLength(analyzeText(text).segments);
      }),
      runs,
    );
  });

  it("matches 1 part up to 160/70 units, else ceil(units / 153|67) plus one per part shortened at a boundary", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const { encoding, units, segments } = analyzeText(text);
        const [single, multi] = encoding === "GSM-7" ? [160, 153] : [70, 67];
        if (units <= single) return expect(segments).toBe(1);
        const parts = splitMessage(text, { reference: 0 });
        const sizes = parts.map((p) => (encoding === "GSM-7" ? p.payload.length : p.payload.length / 2));
        // Every part but the last is full, or one unit short because a 2-unit character moved on.
        const shortened = sizes.slice(0, -1).filter((size) => size === multi - 1).length;
        expect(sizes.slice(0, -1).every((size) => size === multi || size === multi - 1)).toBe(true);
        expect(segments).toBe(Math.ceil((units + shortened) / multi));
        expect(segments).toBeGreaterThanOrEqual(Math.ceil(units / multi));
      }),
      runs,
    );
  });

  it("matches the plain formula when no 2-unit character exists", () => {
    // No extension character either: a text of them alone (a lone "\f" drawn from the BMP) is GSM-7 at 2 units each.
    const noExtension = bmpChar.filter((c) => !EXTENSION_CHARACTERS.includes(c));
    fc.assert(
      fc.property(fc.oneof(textOf(fc.constantFrom(..."abc @$ΔΣ\n")), textOf(noExtension, 800)), (text) => {
        const { encoding, units, segments } = analyzeText(text);
        const [single, multi] = encoding === "GSM-7" ? [160, 153] : [70, 67];
        expect(units).toBe(text.length);
        expect(segments).toBe(units <= single ? 1 : Math.ceil(units / multi));
      }),
      runs,
    );
  });

  it("keeps every part within 140 octets of TP-UD (GSM-7 measured packed)", () => {
    fc.assert(
      fc.property(texts, (text) => {
        for (const part of splitMessage(text, { reference: 200 })) {
          const udhLength = part.udh?.length ?? 0;
          const payloadOctets =
            part.dataCoding === 0x00
              ? packSeptets(part.payload, fillBitsAfterUdh(udhLength)).length
              : part.payload.length;
          expect(udhLength + payloadOctets).toBeLessThanOrEqual(140);
          expect(part.shortMessage).toEqual(Buffer.concat([part.udh ?? Buffer.alloc(0), part.payload]));
        }
      }),
      runs,
    );
  });

  it("never ends a part with a dangling escape or a lone high surrogate", () => {
    fc.assert(
      fc.property(texts, (text) => {
        for (const part of splitMessage(text, { reference: 1 })) {
          if (part.dataCoding === 0x00) {
            // A trailing 0x1B is only legal as the second septet of ESC ESC, which we never send.
            expect(part.payload.at(-1)).not.toBe(0x1b);
          } else if (part.payload.length >= 2) {
            const last = part.payload.readUInt16BE(part.payload.length - 2);
            expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
          }
        }
      }),
      runs,
    );
  });

  it("numbers the parts 1..n under one reference", () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 255 }), (text, reference) => {
        const parts = splitMessage(text, { reference });
        if (parts.length === 1) return expect(parts[0]?.udh).toBeNull();
        parts.forEach((part, index) => {
          expect([...(part.udh ?? [])]).toEqual([5, 0, 3, reference, parts.length, index + 1]);
        });
      }),
      runs,
    );
  });
});
