import { decodeShortMessage, UnsupportedDataCodingError } from "./smpp-data-coding";

describe("decodeShortMessage", () => {
  it("reads 0x24 as $ under IA5 (data_coding 1) and as ¤ under GSM-7 (data_coding 0)", () => {
    expect(decodeShortMessage(Uint8Array.from([0x24]), 1)).toBe("$");
    expect(decodeShortMessage(Uint8Array.from([0x24]), 0)).toBe("¤");
  });

  it("reads 0x00 as @ under GSM-7 and $ from septet 0x02", () => {
    expect(decodeShortMessage(Uint8Array.from([0x00, 0x02]), 0)).toBe("@$");
  });

  it("reads GSM-7 escapes", () => {
    expect(decodeShortMessage(Uint8Array.from([0x31, 0x30, 0x1b, 0x65]), 0)).toBe("10€");
  });

  it("reads Latin-1 é (data_coding 3), also from a view into a larger buffer", () => {
    expect(decodeShortMessage(Uint8Array.from([0x63, 0x61, 0x66, 0xe9]), 3)).toBe("café");
    const pool = Buffer.from([0xff, 0xe9, 0xff]);
    expect(decodeShortMessage(pool.subarray(1, 2), 3)).toBe("é");
  });

  it("marks non-ASCII octets under IA5 instead of reading them as Latin-1", () => {
    expect(decodeShortMessage(Uint8Array.from([0x41, 0xe9]), 1)).toBe("A\uFFFD");
  });

  it("reads UCS-2 big-endian (data_coding 8)", () => {
    expect(decodeShortMessage(Buffer.from("06450631062d06280647d83dde00", "hex"), 8)).toBe("مرحبه😀");
  });

  it("throws a typed error for other data_coding values", () => {
    expect(() => decodeShortMessage(Uint8Array.from([0x41]), 0x04)).toThrow(UnsupportedDataCodingError);
    expect(() => decodeShortMessage(Uint8Array.from([0x41]), 0xf0)).toThrow(/0xf0/);
  });
});
