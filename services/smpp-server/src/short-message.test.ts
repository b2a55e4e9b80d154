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
