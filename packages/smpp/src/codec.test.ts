import { CLIENT_REF_TLV_TAG, decodePdu, encodePdu, PduFramer, type Pdu } from "./codec";
import { CommandStatus } from "./status";

const submit = {
  source_addr: "ACME",
  destination_addr: "+447700900123",
  data_coding: 1,
  short_message: Buffer.from("Price: $5 @ shop_1", "latin1"),
  schedule_delivery_time: "000001000000000R",
  receipted_message_id: "ignored-in-submit",
};

describe("codec", () => {
  it("keeps short_message, message_payload and times raw on decode", () => {
    const frame = encodePdu("submit_sm", 7, { ...submit, message_payload: Buffer.from([0x00, 0x24]) });
    const pdu = decodePdu(frame);
    expect(pdu).toMatchObject({
      command: "submit_sm",
      sequence_number: 7,
      data_coding: 1,
      schedule_delivery_time: "000001000000000R",
    });
    expect(pdu.short_message).toEqual(submit.short_message);
    expect(pdu.message_payload).toEqual(Buffer.from([0x00, 0x24]));
  });

  it("writes and reads our client_ref TLV (0x1400) by name, as raw octets", () => {
    const value = Buffer.from([0x6f, 0x72, 0x64, 0xe9]); // "ord" and a Latin-1 é: kept, never stripped to 0x69
    const frame = encodePdu("submit_sm", 3, { ...submit, client_ref: value });
    const tag = frame.indexOf(Buffer.from([0x14, 0x00, 0x00, 0x04]));
    expect(tag).toBeGreaterThan(0);
    expect(frame.subarray(tag + 4, tag + 8)).toEqual(value);
    expect(CLIENT_REF_TLV_TAG).toBe(0x1400);
    expect(decodePdu(frame).client_ref).toEqual(value);
  });

  it("round-trips UCS-2 bytes untouched", () => {
    const arabic = Buffer.from("مرحبا", "utf16le").swap16();
    const pdu = decodePdu(
      encodePdu("deliver_sm", 1, {
        source_addr: "1",
        destination_addr: "2",
        data_coding: 8,
        short_message: arabic,
      }),
    );
    expect(pdu.short_message).toEqual(arabic);
  });

  it("refuses text, oversize messages and a missing data_coding", () => {
    expect(() => encodePdu("submit_sm", 1, { ...submit, short_message: "text" })).toThrow(TypeError);
    expect(() => encodePdu("submit_sm", 1, { ...submit, short_message: Buffer.alloc(255) })).toThrow(
      RangeError,
    );
    expect(() => encodePdu("submit_sm", 1, { ...submit, data_coding: undefined })).toThrow(/data_coding/);
    expect(() => encodePdu("no_such_command", 1)).toThrow(/unknown/);
  });

  it("sends only the header when command_status is an error", () => {
    const frame = encodePdu("submit_sm_resp", 3, { message_id: "abc" }, CommandStatus.ESME_RTHROTTLED);
    expect(frame.length).toBe(16);
    expect(decodePdu(frame)).toMatchObject({
      command: "submit_sm_resp",
      command_status: 0x58,
      sequence_number: 3,
    });
  });
});

describe("PduFramer", () => {
  it("reads a 16 KiB PDU sent a byte at a time with linear work, its bytes intact", () => {
    const payload = Buffer.alloc(16_000, 0x61);
    payload.write("end", payload.length - 3);
    const frame = encodePdu("submit_sm", 7, {
      ...submit,
      short_message: undefined,
      message_payload: payload,
    });
    const framer = new PduFramer();
    const events = [];
    for (let i = 0; i < frame.length; i++) events.push(...framer.push(frame.subarray(i, i + 1)));
    expect(events).toHaveLength(1);
    const pdu = (events[0] as { pdu: Pdu }).pdu;
    expect(pdu.sequence_number).toBe(7);
    expect(Buffer.from(pdu.message_payload as Buffer).equals(payload)).toBe(true);
    // Re-copying what is pending on every chunk would copy about frame.length² / 2 bytes (~130 MB).
    expect(framer.copiedBytes).toBeLessThan(3 * frame.length);
    // The buffer is reused: a second PDU after the first comes out whole too.
    const again = framer.push(encodePdu("enquire_link", 8));
    expect(again).toEqual([expect.objectContaining({ type: "pdu" })]);
  });

  it("reassembles PDUs split across chunks and several PDUs in one chunk", () => {
    const frames = Buffer.concat([
      encodePdu("enquire_link", 1),
      encodePdu("submit_sm", 2, submit),
      encodePdu("enquire_link", 3),
    ]);
    const framer = new PduFramer();
    const seen: number[] = [];
    for (let i = 0; i < frames.length; i += 5) {
      for (const event of framer.push(frames.subarray(i, i + 5)))
        if (event.type === "pdu") seen.push(event.pdu.sequence_number);
    }
    expect(seen).toEqual([1, 2, 3]);
  });

  it("decodes an unknown command id as 'unknown' and keeps reading", () => {
    const unknown = Buffer.alloc(16);
    unknown.writeUInt32BE(16, 0);
    unknown.writeUInt32BE(0x00000777, 4);
    unknown.writeUInt32BE(9, 12);
    const events = new PduFramer().push(Buffer.concat([unknown, encodePdu("enquire_link", 10)]));
    expect(events.map((event) => (event.type === "pdu" ? event.pdu.command : event.type))).toEqual([
      "unknown",
      "enquire_link",
    ]);
  });

  it("reports a bad command_length with the sequence number when the header is readable, then stops", () => {
    const framer = new PduFramer();
    const events = framer.push(Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    expect(events).toEqual([
      expect.objectContaining({
        type: "malformed",
        status: CommandStatus.ESME_RINVCMDLEN,
        sequenceNumber: expect.any(Number),
      }),
    ]);
    expect(framer.push(encodePdu("enquire_link", 1))).toEqual([]);
    expect(new PduFramer().push(Buffer.from([0, 0, 0, 3]))).toEqual([
      expect.objectContaining({ type: "malformed", sequenceNumber: undefined }),
    ]);
  });

  it("reports a body the codec cannot read", () => {
    const frame = encodePdu("deliver_sm", 4, {
      source_addr: "1",
      destination_addr: "2",
      data_coding: 0,
      short_message: Buffer.from("hi"),
    });
    // A TLV header announcing 1 byte of message_state where the PDU ends.
    const broken = Buffer.concat([frame, Buffer.from([0x04, 0x27, 0x00, 0x01])]);
    broken.writeUInt32BE(broken.length, 0);
    expect(new PduFramer().push(broken)).toEqual([
      expect.objectContaining({ type: "malformed", sequenceNumber: 4 }),
    ]);
  });

  it("never throws on random bytes", () => {
    for (let run = 0; run < 500; run++) {
      const bytes = Buffer.from(
        Array.from({ length: 16 + Math.floor(Math.random() * 64) }, () => Math.floor(Math.random() * 256)),
      );
      bytes.writeUInt32BE(bytes.length, 0);
      bytes.writeUInt32BE([4, 5, 9, 0x80000004, 0x21][run % 5]!, 4);
      expect(() => new PduFramer().push(bytes)).not.toThrow();
    }
  });
});
