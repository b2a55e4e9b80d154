import { decodeUcs2, encodeUcs2 } from "./ucs2";

describe("UCS-2", () => {
  it("encodes big-endian", () => {
    expect(encodeUcs2("Aé").toString("hex")).toBe("004100e9");
    expect(encodeUcs2("م").toString("hex")).toBe("0645");
  });

  it("sends an astral character as its surrogate pair", () => {
    expect(encodeUcs2("😀").toString("hex")).toBe("d83dde00");
    expect(decodeUcs2(Buffer.from("d83dde00", "hex"))).toBe("😀");
  });

  it("round-trips Arabic, emoji and lone surrogates", () => {
    for (const text of ["مرحبا بالعالم", "Hi 👋 there", "\ud83d", "a\udc00b"]) {
      expect(decodeUcs2(encodeUcs2(text))).toBe(text);
    }
  });

  it("marks an odd trailing octet as U+FFFD and leaves the input untouched", () => {
    const input = Buffer.from("004100", "hex");
    expect(decodeUcs2(input)).toBe("A\uFFFD");
    expect(input.toString("hex")).toBe("004100");
  });
});
