import { splitMessage, unpackSeptets } from "@sms/sms-encoding";
import { canCarry, encodeForCarrier } from "./carrier-encoding";

const one = (text: string) => splitMessage(text, { reference: 7 })[0]!;

describe("encodeForCarrier", () => {
  it("unpacked: the encoder's septets, one per octet", () => {
    const part = one("@£_ ok");
    expect(encodeForCarrier(part, "unpacked")).toBe(part);
    expect([...part.shortMessage]).toEqual([0x00, 0x01, 0x11, 0x20, 0x6f, 0x6b]);
  });

  it("latin1: @ £ _ as that table has them, data_coding still 0", () => {
    const part = encodeForCarrier(one("@£_ ok"), "latin1");
    expect(part.dataCoding).toBe(0);
    expect([...part.shortMessage]).toEqual([0x40, 0xa3, 0x5f, 0x20, 0x6f, 0x6b]);
  });

  it('packed: 7 bits per septet ("hellohello" is the TS 23.038 example)', () => {
    const part = encodeForCarrier(one("hellohello"), "packed");
    expect(part.shortMessage.toString("hex")).toBe("e8329bfd4697d9ec37");
  });

  it("packed: 7 spare bits at the end hold a CR, never a septet read as @", () => {
    const part = encodeForCarrier(one("1234567"), "packed");
    expect(part.shortMessage).toHaveLength(7);
    expect(unpackSeptets(part.shortMessage, 8)[7]).toBe(0x0d);
  });

  it("packed parts keep their UDH and start the septets after its fill bits", () => {
    const parts = splitMessage("x".repeat(200), { reference: 9 });
    const packed = encodeForCarrier(parts[0]!, "packed");
    expect(packed.shortMessage.subarray(0, 6)).toEqual(parts[0]!.udh);
    // 6 UDH octets = 48 bits: 1 fill bit, then 153 septets.
    expect(unpackSeptets(packed.shortMessage.subarray(6), 153, 1).every((s) => s === 0x78)).toBe(true);
  });

  it("leaves UCS-2 alone", () => {
    const part = one("привет");
    expect(encodeForCarrier(part, "latin1")).toBe(part);
    expect(encodeForCarrier(part, "packed")).toBe(part);
  });
});

describe("canCarry", () => {
  it("a Latin-1 carrier cannot carry GSM-7 text with Greek capitals or €; the others can", () => {
    expect(canCarry(splitMessage("Δ 5 €", { reference: 1 }), "latin1")).toBe(false);
    expect(canCarry(splitMessage("Δ 5 €", { reference: 1 }), "packed")).toBe(true);
    expect(canCarry(splitMessage("@£_ [ok]", { reference: 1 }), "latin1")).toBe(true);
    expect(canCarry(splitMessage("привет", { reference: 1 }), "latin1")).toBe(true);
  });
});
