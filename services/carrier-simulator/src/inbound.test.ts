import { buildInboundParts, InboundRequest } from "./inbound";

const parse = (body: unknown) => InboundRequest.parse(body);

describe("buildInboundParts", () => {
  it("splits a UCS-2 text into UDH parts in the order asked, never inside a character unit", () => {
    const parts = buildInboundParts(
      parse({
        from: "+447700900123",
        to: "+14155550123",
        text: "مرحبا بكم",
        encoding: "ucs2",
        part_octets: 7,
        reference: 9,
        order: [3, 1, 2],
      }),
    );
    expect(parts.map((p) => [...(p.short_message as Buffer).subarray(0, 6)])).toEqual([
      [5, 0, 3, 9, 3, 3],
      [5, 0, 3, 9, 3, 1],
      [5, 0, 3, 9, 3, 2],
    ]);
    const text = Buffer.concat(
      [parts[1], parts[2], parts[0]].map((p) => (p!.short_message as Buffer).subarray(6)),
    )
      .swap16()
      .toString("utf16le");
    expect(text).toBe("مرحبا بكم");
    expect(parts[0]).toMatchObject({
      esm_class: 0x40,
      data_coding: 8,
      source_addr: "447700900123",
      source_addr_ton: 1,
      destination_addr: "14155550123",
      dest_addr_ton: 1,
    });
  });

  it("numbers parts with the SAR TLVs or a 16-bit reference when asked, and keeps GSM-7 escapes whole", () => {
    const sar = buildInboundParts(
      parse({ from: "ACME", to: "46645", text: "ab€", part_octets: 3, concat: "sar", reference: 700 }),
    );
    expect(
      sar.map((p) => [
        p.sar_msg_ref_num,
        p.sar_total_segments,
        p.sar_segment_seqnum,
        [...(p.short_message as Buffer)],
      ]),
    ).toEqual([
      [700, 2, 1, [0x61, 0x62]],
      [700, 2, 2, [0x1b, 0x65]],
    ]);
    expect(sar[0]).toMatchObject({ esm_class: 0, source_addr_ton: 5, dest_addr_ton: 0 });
    const udh16 = buildInboundParts(
      parse({ from: "1", to: "2", text: "abcd", part_octets: 2, concat: "udh16", reference: 0x1234 }),
    );
    expect([...(udh16[1]!.short_message as Buffer).subarray(0, 7)]).toEqual([6, 8, 4, 0x12, 0x34, 2, 2]);
  });

  it("sends raw octets, a data_coding override and a UDH as given (bad input on purpose)", () => {
    const [part] = buildInboundParts(
      parse({ from: "1", to: "2", hex: "cafe", data_coding: 4, udh_hex: "09000301" }),
    );
    expect(part).toMatchObject({ esm_class: 0x40, data_coding: 4 });
    expect((part!.short_message as Buffer).toString("hex")).toBe("09000301cafe");
  });

  it("refuses what it cannot build", () => {
    expect(InboundRequest.safeParse({ from: "1", to: "2" }).success).toBe(false);
    expect(InboundRequest.safeParse({ from: "1", to: "2", text: "x", hex: "00" }).success).toBe(false);
    expect(() => buildInboundParts(parse({ from: "1", to: "2", text: "x", order: [2] }))).toThrow(RangeError);
    expect(() => buildInboundParts(parse({ from: "1", to: "2", text: "ب", encoding: "gsm7" }))).toThrow(
      RangeError,
    );
  });
});
