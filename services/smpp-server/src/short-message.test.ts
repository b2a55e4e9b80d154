import fc from "fast-check";
import { CommandStatus, EsmClass, type Pdu } from "@sms/smpp";
import { decodeText, parseSubmit, SubmitRefusal } from "./short-message";

const pdu = (fields: Record<string, unknown>): Pdu =>
  ({
    command: "submit_sm",
    command_id: 4,
    command_status: 0,
    sequence_number: 1,
    command_length: 0,
    source_addr: "ACME",
    destination_addr: "447911123456",
    dest_addr_ton: 1,
    data_coding: 0,
    short_message: Buffer.from("hi"),
    ...fields,
  }) as Pdu;

describe("parseSubmit", () => {
  it("writes international destinations as E.164 and keeps the customer's own forms", () => {
    expect(parseSubmit(pdu({}))).toMatchObject({ to: "+447911123456", destinationAddr: "447911123456" });
    expect(parseSubmit(pdu({ destination_addr: "+447911123456", dest_addr_ton: 0 })).to).toBe(
      "+447911123456",
    );
    expect(parseSubmit(pdu({ destination_addr: "00447911123456", dest_addr_ton: 0 })).to).toBe(
      "+447911123456",
    );
    expect(parseSubmit(pdu({ destination_addr: "ab12", dest_addr_ton: 5 })).to).toBe("ab12");
  });

  it("reads the three concatenation forms and strips the UDH from the text", () => {
    const udh8 = parseSubmit(
      pdu({ esm_class: EsmClass.UDHI, short_message: Buffer.from([5, 0, 3, 9, 2, 1, 0x41]) }),
    );
    expect(udh8).toMatchObject({ part: { reference: 9, total: 2, seq: 1 }, octets: Buffer.from([0x41]) });
    const udh16 = parseSubmit(
      pdu({ esm_class: EsmClass.UDHI, short_message: Buffer.from([6, 8, 4, 0x12, 0x34, 3, 3, 0x42]) }),
    );
    expect(udh16.part).toEqual({ reference: 0x1234, total: 3, seq: 3 });
    const sar = parseSubmit(pdu({ sar_msg_ref_num: 77, sar_total_segments: 2, sar_segment_seqnum: 2 }));
    expect(sar.part).toEqual({ reference: 77, total: 2, seq: 2 });
    // A UDH without a concatenation element (a port number) is stripped, and the message is whole.
    const ports = parseSubmit(
      pdu({ esm_class: EsmClass.UDHI, short_message: Buffer.from([6, 5, 4, 0x0b, 0x84, 0, 0, 0x43]) }),
    );
    expect(ports).toMatchObject({ octets: Buffer.from([0x43]) });
    expect(ports.part).toBeUndefined();
  });

  it("refuses what cannot be a message, each with the status the README lists", () => {
    const status = (fields: Record<string, unknown>) => {
      try {
        parseSubmit(pdu(fields));
        return CommandStatus.ESME_ROK;
      } catch (error) {
        return (error as SubmitRefusal).status;
      }
    };
    expect(status({ destination_addr: "" })).toBe(CommandStatus.ESME_RINVDSTADR);
    expect(status({ source_addr: "" })).toBe(CommandStatus.ESME_RINVSRCADR);
    expect(status({ data_coding: 0x04 })).toBe(CommandStatus.ESME_RSUBMITFAIL);
    expect(status({ message_payload: Buffer.from("x") })).toBe(CommandStatus.ESME_RSUBMITFAIL);
    expect(status({ esm_class: EsmClass.UDHI, short_message: Buffer.from([7, 0]) })).toBe(
      CommandStatus.ESME_RINVESMCLASS,
    );
    expect(status({ sar_msg_ref_num: 1, sar_total_segments: 2, sar_segment_seqnum: 3 })).toBe(
      CommandStatus.ESME_RSUBMITFAIL,
    );
  });

  describe("validity_period (docs/messages.md#validity)", () => {
    const now = new Date("2026-11-22T10:00:00Z");
    const validUntil = (fields: Record<string, unknown>) => parseSubmit(pdu(fields), now).validUntil;
    const refusal = (fields: Record<string, unknown>) => {
      try {
        parseSubmit(pdu(fields), now);
      } catch (error) {
        return error instanceof SubmitRefusal ? error.status : error;
      }
      return CommandStatus.ESME_ROK;
    };

    it("is null when absent or empty: the deployment's default applies", () => {
      expect(validUntil({})).toBeNull();
      expect(validUntil({ validity_period: "" })).toBeNull();
    });

    it("reads the absolute form, with its offset from UTC", () => {
      expect(validUntil({ validity_period: "261122120000000+" })).toEqual(new Date("2026-11-22T12:00:00Z"));
      // 12:00 local, 8 quarter hours (2 h) behind UTC: 14:00 UTC.
      expect(validUntil({ validity_period: "261122120000008-" })).toEqual(new Date("2026-11-22T14:00:00Z"));
      // 11:00 local, 4 quarter hours (1 h) ahead of UTC: 10:00 UTC, which is now: over already.
      expect(refusal({ validity_period: "261122110000004+" })).toBe(CommandStatus.ESME_RINVEXPIRY);
    });

    it("reads the relative form from the submit", () => {
      expect(validUntil({ validity_period: "000000000010000R" })).toEqual(new Date("2026-11-22T10:00:10Z"));
      expect(validUntil({ validity_period: "000002013000000R" })).toEqual(new Date("2026-11-24T11:30:00Z"));
    });

    it("counts a relative validity from the submit, not from schedule_delivery_time", () => {
      const parsed = parseSubmit(
        pdu({ schedule_delivery_time: "000000010000000R", validity_period: "000000020000000R" }),
        now,
      );
      expect(parsed.scheduledAt).toBe("2026-11-22T11:00:00.000Z");
      expect(parsed.validUntil).toEqual(new Date("2026-11-22T12:00:00Z"));
    });

    it("refuses a malformed one, one already over and one over before the message is due with ESME_RINVEXPIRY", () => {
      for (const bad of ["2611221200", "261322120000000+", "26112212000000XR", "000000000010000Q"])
        expect(refusal({ validity_period: bad })).toBe(CommandStatus.ESME_RINVEXPIRY);
      expect(refusal({ validity_period: "261122095959000+" })).toBe(CommandStatus.ESME_RINVEXPIRY);
      expect(refusal({ validity_period: "000000000000000R" })).toBe(CommandStatus.ESME_RINVEXPIRY);
      expect(
        refusal({ schedule_delivery_time: "261122120000000+", validity_period: "261122113000000+" }),
      ).toBe(CommandStatus.ESME_RINVEXPIRY);
      expect(
        refusal({ schedule_delivery_time: "261122120000000+", validity_period: "261122123000000+" }),
      ).toBe(CommandStatus.ESME_ROK);
    });
  });

  it.each([
    ["GSM-7 octets 0x80 and 0xFF", [0x6f, 0x6b, 0x80, 0xff], 0x00],
    ["a lone trailing GSM-7 escape", [0x6f, 0x6b, 0x1b], 0x00],
    ["UCS-2 of odd length", [0x00, 0x6f, 0x00], 0x08],
    ["a lone UCS-2 surrogate", [0x00, 0x6f, 0xd8, 0x3d], 0x08],
  ])(
    "refuses text that is not valid in its data_coding (%s) with ESME_RSUBMITFAIL, never U+FFFD",
    (_, octets, dataCoding) => {
      let refusal: unknown;
      try {
        decodeText(Buffer.from(octets), dataCoding);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(SubmitRefusal);
      expect((refusal as SubmitRefusal).status).toBe(CommandStatus.ESME_RSUBMITFAIL);
    },
  );

  it("throws nothing but SubmitRefusal, whatever the fields hold", () => {
    fc.assert(
      fc.property(
        fc.record({
          data_coding: fc.integer({ min: 0, max: 255 }),
          esm_class: fc.integer({ min: 0, max: 255 }),
          short_message: fc.uint8Array({ maxLength: 254 }).map((bytes) => Buffer.from(bytes)),
          destination_addr: fc.string({ maxLength: 21 }),
          dest_addr_ton: fc.integer({ min: 0, max: 255 }),
        }),
        (fields) => {
          try {
            const parsed = parseSubmit(pdu(fields));
            decodeText(parsed.octets, parsed.dataCoding);
          } catch (error) {
            if (!(error instanceof SubmitRefusal)) throw error;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
