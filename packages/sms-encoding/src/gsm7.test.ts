import { GSM7_CHARACTERS } from "./gsm7-alphabet";
import { countGsm7Septets, decodeGsm7, encodeGsm7, isGsm7, NotGsm7Error } from "./gsm7";

describe("GSM-7 alphabet", () => {
  it("has 127 basic characters (128 septets less the escape) and 10 extension characters", () => {
    expect(GSM7_CHARACTERS).toHaveLength(137);
    expect(new Set(GSM7_CHARACTERS).size).toBe(137);
  });

  it("encodes @ as septet 0x00 and $ as 0x02", () => {
    expect([...encodeGsm7("@$")]).toEqual([0x00, 0x02]);
  });

  it("encodes each extension character as escape 0x1B plus its septet", () => {
    expect([...encodeGsm7("€[]{}\\^~|\f")]).toEqual([
      0x1b, 0x65, 0x1b, 0x3c, 0x1b, 0x3e, 0x1b, 0x28, 0x1b, 0x29, 0x1b, 0x2f, 0x1b, 0x14, 0x1b, 0x3d, 0x1b,
      0x40, 0x1b, 0x0a,
    ]);
    for (const char of "€[]{}\\^~|\f") expect(countGsm7Septets(char)).toBe(2);
  });

  it("carries the Greek capitals of the GSM table at 0x10 and 0x12–0x1A", () => {
    expect([...encodeGsm7("ΔΦΓΛΩΠΨΣΘΞ")]).toEqual([
      0x10, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a,
    ]);
    expect(decodeGsm7(Uint8Array.from([0x10, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a]))).toBe(
      "ΔΦΓΛΩΠΨΣΘΞ",
    );
  });

  it("knows which Latin accents exist (é, Ç, ß) and which do not (ç, ê, Greek Alpha)", () => {
    expect(isGsm7("éÇßÄöñüà¿¡§")).toBe(true);
    expect(isGsm7("ç")).toBe(false);
    expect(isGsm7("ê")).toBe(false);
    expect(isGsm7("Α")).toBe(false); // U+0391, looks like A but is not in the table
  });

  it("refuses to encode a character outside the alphabet instead of substituting it", () => {
    expect(() => encodeGsm7("ok مرحبا")).toThrow(NotGsm7Error);
    const error = (() => {
      try {
        encodeGsm7("ab😀");
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(NotGsm7Error);
    expect(error).toMatchObject({ character: "😀", index: 2, message: expect.stringContaining("U+1F600") });
  });

  it("round-trips every character of the alphabet", () => {
    const all = GSM7_CHARACTERS.join("");
    expect(decodeGsm7(encodeGsm7(all))).toBe(all);
  });

  it("decodes a dangling escape and ESC ESC as a space (TS 23.038 §6.2.1)", () => {
    expect(decodeGsm7(Uint8Array.from([0x41, 0x1b]))).toBe("A ");
    expect(decodeGsm7(Uint8Array.from([0x1b, 0x1b, 0x41]))).toBe(" A");
  });

  it("decodes an unassigned extension code as the basic-table character (TS 23.038 §6.2.1.1)", () => {
    expect(decodeGsm7(Uint8Array.from([0x1b, 0x41]))).toBe("A");
  });

  it("marks octets above 0x7F as U+FFFD instead of guessing", () => {
    expect(decodeGsm7(Uint8Array.from([0x41, 0xc1, 0x1b, 0x80]))).toBe("A\uFFFD\uFFFD");
  });
});
