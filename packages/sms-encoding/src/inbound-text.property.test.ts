import fc from "fast-check";
import { GSM7_CHARACTERS } from "./gsm7-alphabet";
import { encodeGsm7 } from "./gsm7";
import { decodeInboundText, inboundEncodingOf } from "./inbound-text";
import { encodeUcs2 } from "./ucs2";

const runs = { numRuns: 500 };
const noNul = (text: string) => text.split("\u0000").join("");
const wellFormedText = fc
  .string({ unit: "grapheme", maxLength: 400 })
  .map(noNul)
  .filter((text) => !/[\uD800-\uDFFF]/.test(text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, "")));
const gsmText = fc
  .array(fc.constantFrom(...GSM7_CHARACTERS, "€", "[", "]", "{", "}", "\\", "^", "~", "|"), {
    maxLength: 400,
  })
  .map((chars) => chars.join(""));

describe("decodeInboundText (fuzz)", () => {
  it("never throws on any octets and any data_coding, and gives text PostgreSQL stores as is", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 600 }),
        fc.integer({ min: 0, max: 255 }),
        (bytes, dataCoding) => {
          const { text, encoding } = decodeInboundText(bytes, dataCoding);
          expect(encoding).toBe(inboundEncodingOf(dataCoding));
          expect(text).not.toContain("\u0000");
          // Well-formed UTF-16: a round trip through UTF-8 changes nothing.
          expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text);
          if (encoding === "hex") expect(text).toBe(Buffer.from(bytes).toString("hex"));
        },
      ),
      runs,
    );
  });

  it("reads back any UCS-2 text exactly, whatever octet the parts were cut at", () => {
    fc.assert(
      fc.property(wellFormedText, fc.nat(), (text, cutAt) => {
        const bytes = encodeUcs2(text);
        const cut = bytes.length === 0 ? 0 : cutAt % bytes.length;
        // The parts are joined before decoding: a surrogate pair split between two parts is one character.
        const joined = Buffer.concat([bytes.subarray(0, cut), bytes.subarray(cut)]);
        expect(decodeInboundText(joined, 0x08)).toEqual({ text, encoding: "UCS-2" });
      }),
      runs,
    );
  });

  it("reads back any GSM-7 text exactly, extension characters included", () => {
    fc.assert(
      fc.property(gsmText, (text) => {
        expect(decodeInboundText(encodeGsm7(text), 0x00)).toEqual({ text, encoding: "GSM-7" });
      }),
      runs,
    );
  });
});

describe("decodeInboundText", () => {
  it("decodes Arabic UCS-2, an astral emoji, Latin-1 and IA5", () => {
    expect(decodeInboundText(encodeUcs2("مرحبا 👋"), 0x08).text).toBe("مرحبا 👋");
    expect(decodeInboundText(Buffer.from("Café ñ", "latin1"), 0x03)).toEqual({
      text: "Café ñ",
      encoding: "Latin-1",
    });
    expect(decodeInboundText(Buffer.from([0x24, 0x35, 0xe9]), 0x01)).toEqual({
      text: "$5\uFFFD",
      encoding: "IA5",
    });
  });

  it("reads the GSM message-class data codings as GSM-7 or UCS-2, and binary as hex", () => {
    expect(decodeInboundText(encodeGsm7("Hi €"), 0xf0).text).toBe("Hi €");
    expect(decodeInboundText(encodeGsm7("Hi"), 0x11).encoding).toBe("GSM-7");
    expect(decodeInboundText(encodeUcs2("ок"), 0x18).text).toBe("ок");
    expect(decodeInboundText(Buffer.from([0xde, 0xad]), 0x04)).toEqual({ text: "dead", encoding: "hex" });
    expect(decodeInboundText(Buffer.from([0xde, 0xad]), 0xf4).encoding).toBe("hex");
  });

  it("drops trailing NUL padding and marks a NUL inside the text, a lone surrogate too", () => {
    expect(decodeInboundText(Buffer.from("ok\u0000\u0000", "latin1"), 0x03).text).toBe("ok");
    expect(decodeInboundText(Buffer.from("a\u0000b", "latin1"), 0x03).text).toBe("a\uFFFDb");
    expect(decodeInboundText(Buffer.from([0xd8, 0x3d, 0x00, 0x41]), 0x08).text).toBe("\uFFFDA");
  });
});
