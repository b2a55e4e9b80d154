import { decodeGsm7Unpacked, decodeShortMessage, decodeUcs2 } from "./text-decoding";

describe("text decoding", () => {
  it("decodes unpacked GSM-7 with the characters that differ from ASCII and the extension table", () => {
    const bytes = Buffer.from([0x00, 0x02, 0x11, 0x20, 0x1b, 0x65, 0x1b, 0x28, 0x41, 0x1b, 0x29]);
    expect(decodeGsm7Unpacked(bytes)).toBe("@$_ €{A}");
  });

  it("decodes UCS-2 big-endian, surrogate pairs included", () => {
    expect(decodeUcs2(Buffer.from("d83dde00 0645 0631".replace(/ /g, ""), "hex"))).toBe("😀مر");
  });

  it("splits the UDH off and reads concatenation info (8- and 16-bit references)", () => {
    const udh8 = Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x02, 0x01]);
    const decoded = decodeShortMessage(Buffer.concat([udh8, Buffer.from("Hi")]), 0, 0x40);
    expect(decoded).toMatchObject({ text: "Hi", segment: { reference: 0x2a, total: 2, index: 1 } });
    const udh16 = Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 0x03, 0x03]);
    expect(decodeShortMessage(Buffer.concat([udh16, Buffer.from("00410042", "hex")]), 8, 0x40)).toMatchObject(
      {
        text: "AB",
        segment: { reference: 0x1234, total: 3, index: 3 },
      },
    );
  });

  it("reads IA5 and Latin-1 as such and leaves binary undecoded", () => {
    expect(decodeShortMessage(Buffer.from("$5"), 1, 0).text).toBe("$5");
    expect(decodeShortMessage(Buffer.from([0xe9]), 3, 0).text).toBe("é");
    expect(decodeShortMessage(Buffer.from([0xde, 0xad]), 4, 0).text).toBeUndefined();
  });
});

describe("data_coding 0 as the SMSC reads it", () => {
  it("GSM-7 packed (the TS 23.038 example), with a CR padding 7 spare bits dropped", () => {
    expect(decodeShortMessage(Buffer.from("e8329bfd4697d9ec37", "hex"), 0, 0, "gsm7-packed").text).toBe(
      "hellohello",
    );
    // "1234567" + CR packed in 7 octets.
    const packed = Buffer.from([0x31, 0xd9, 0x8c, 0x56, 0xb3, 0xdd, 0x1a]);
    expect(decodeShortMessage(packed, 0, 0, "gsm7-packed").text).toBe("1234567");
  });

  it("Latin-1", () => {
    expect(decodeShortMessage(Buffer.from([0x40, 0xa3, 0x5f]), 0, 0, "latin1").text).toBe("@£_");
  });
});
