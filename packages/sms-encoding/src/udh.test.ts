import { concatUdh, parseUdh, splitUdh } from "./udh";

describe("concatenation UDH", () => {
  it("builds 05 00 03 ref total seq", () => {
    expect(concatUdh(0xcc, 3, 2).toString("hex")).toBe("050003cc0302");
  });

  it("rejects values an octet cannot carry or a seq past the total", () => {
    expect(() => concatUdh(256, 2, 1)).toThrow(RangeError);
    expect(() => concatUdh(1, 0, 1)).toThrow(RangeError);
    expect(() => concatUdh(1, 2, 3)).toThrow(RangeError);
    expect(() => concatUdh(1.5, 2, 1)).toThrow(RangeError);
  });

  it("reads back what it builds", () => {
    expect(parseUdh(Buffer.concat([concatUdh(7, 4, 3), Buffer.from("hi")]))).toEqual({
      reference: 7,
      total: 4,
      seq: 3,
      headerLength: 6,
    });
  });

  it("reads the 16-bit reference element (IEI 0x08)", () => {
    expect(parseUdh(Buffer.from("060804beef0201", "hex"))).toEqual({
      reference: 0xbeef,
      total: 2,
      seq: 1,
      headerLength: 7,
    });
  });

  it("finds the concatenation element among others (here an application port element)", () => {
    // IEI 0x05 (16-bit ports, TS 23.040 §9.2.3.24.4) then IEI 0x00.
    expect(parseUdh(Buffer.from("0b05040b8423f00003450201", "hex"))).toEqual({
      reference: 0x45,
      total: 2,
      seq: 1,
      headerLength: 12,
    });
  });

  it("returns null for a UDH without concatenation, a truncated one, or seq 0 / seq past total", () => {
    expect(parseUdh(Buffer.from("0405040b84", "hex"))).toBeNull(); // ports element truncated
    expect(parseUdh(Buffer.from("0605040b8423f0", "hex"))).toBeNull(); // ports only
    expect(parseUdh(Buffer.from("050003010201", "hex").subarray(0, 4))).toBeNull();
    expect(parseUdh(Buffer.from("050003010200", "hex"))).toBeNull();
    expect(parseUdh(Buffer.from("050003010203", "hex"))).toBeNull();
    expect(parseUdh(Buffer.from("050003010002", "hex"))).toBeNull();
    expect(parseUdh(Buffer.alloc(0))).toBeNull();
    expect(parseUdh(Buffer.from("0100", "hex"))).toBeNull(); // element header cut by UDHL
  });

  it("takes the last occurrence of a repeated element (TS 23.040 §9.2.3.24)", () => {
    expect(parseUdh(Buffer.from("0a000301020100030903 02".replace(/ /g, ""), "hex"))).toMatchObject({
      reference: 9,
      total: 3,
      seq: 2,
    });
  });

  it("splits a short_message into UDH and text", () => {
    const parts = splitUdh(Buffer.from("05000301020148", "hex"));
    expect(parts?.udh.toString("hex")).toBe("050003010201");
    expect(parts?.payload.toString("hex")).toBe("48");
    expect(splitUdh(Buffer.from("0500", "hex"))).toBeNull();
  });
});
