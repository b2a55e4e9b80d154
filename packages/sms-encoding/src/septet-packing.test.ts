import fc from "fast-check";
import { encodeGsm7 } from "./gsm7";
import { fillBitsAfterUdh, packSeptets, unpackSeptets } from "./septet-packing";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex").toUpperCase();

describe("septet packing", () => {
  it("packs the classic vectors from the GSM 03.38 literature", () => {
    expect(hex(packSeptets(encodeGsm7("hellohello")))).toBe("E8329BFD4697D9EC37");
    // 8 septets fill exactly 7 octets.
    expect(hex(packSeptets(encodeGsm7("12345678")))).toBe("31D98C56B3DD70");
  });

  it("shifts the text by the fill bits that follow a UDH", () => {
    // "A" (0x41) after 1 fill bit: 1000001 << 1 = 0x82.
    expect(hex(packSeptets([0x41], 1))).toBe("82");
    expect([...unpackSeptets(Uint8Array.from([0x82]), 1, 1)]).toEqual([0x41]);
  });

  it("needs 1 fill bit after the 6-octet concatenation UDH and 0 after a 7-octet one", () => {
    expect(fillBitsAfterUdh(6)).toBe(1);
    expect(fillBitsAfterUdh(7)).toBe(0);
    expect(fillBitsAfterUdh(0)).toBe(0);
  });

  it("fits 153 septets after a 6-octet UDH and 160 without one in 140 octets", () => {
    expect(6 + packSeptets(new Uint8Array(153), fillBitsAfterUdh(6)).length).toBe(140);
    expect(packSeptets(new Uint8Array(160)).length).toBe(140);
  });

  it("rejects values that are not septets, bad fill bits and reads past the end", () => {
    expect(() => packSeptets([0x80])).toThrow(RangeError);
    expect(() => packSeptets([0x41], 7)).toThrow(RangeError);
    expect(() => unpackSeptets(Uint8Array.from([0x41]), 2)).toThrow(RangeError);
  });

  it("round-trips any septets with and without fill bits", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ max: 0x7f, maxLength: 400 }),
        fc.integer({ min: 0, max: 6 }),
        (septets, fillBits) => {
          const packed = packSeptets(septets, fillBits);
          expect(packed.length).toBe(Math.ceil((fillBits + septets.length * 7) / 8));
          expect(unpackSeptets(packed, septets.length, fillBits)).toEqual(septets);
        },
      ),
      { numRuns: 500 },
    );
  });
});
