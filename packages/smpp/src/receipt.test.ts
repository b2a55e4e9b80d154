import type { Pdu } from "./codec";
import {
  formatReceiptText,
  messageIdCandidates,
  parseReceipt,
  parseReceiptDate,
  parseReceiptText,
} from "./receipt";

function deliverSm(text: string | Buffer, extra: Record<string, unknown> = {}): Pdu {
  return {
    command: "deliver_sm",
    command_id: 5,
    command_status: 0,
    sequence_number: 1,
    command_length: 0,
    esm_class: 0x04,
    data_coding: 0,
    short_message: Buffer.isBuffer(text) ? text : Buffer.from(text, "latin1"),
    ...extra,
  };
}

describe("formatReceiptText", () => {
  it("writes the appendix B form with padded counters and UTC dates", () => {
    const text = formatReceiptText({
      id: "a1b2",
      sub: 1,
      dlvrd: 1,
      submitDate: new Date(Date.UTC(2024, 0, 2, 3, 4)),
      doneDate: new Date(Date.UTC(2024, 0, 2, 3, 5)),
      stat: "DELIVRD",
      err: 0,
      text: "Your code is",
    });
    expect(text).toBe(
      "id:a1b2 sub:001 dlvrd:001 submit date:2401020304 done date:2401020305 stat:DELIVRD err:000 text:Your code is",
    );
  });
});

describe("parseReceipt", () => {
  it("reads the standard text and round-trips formatReceiptText", () => {
    const text = formatReceiptText({
      id: "0f3c",
      submitDate: "2401020304",
      doneDate: "2401020305",
      stat: "UNDELIV",
      err: 1,
      text: "hello stat:fake",
    });
    const receipt = parseReceipt(deliverSm(text));
    expect(receipt).toMatchObject({
      messageId: "0f3c",
      state: "undeliverable",
      isFinal: true,
      stat: "UNDELIV",
      err: "001",
      sub: "001",
      dlvrd: "000",
      submitDate: "2401020304",
      doneDate: "2401020305",
      text: "hello stat:fake",
    });
  });

  it("accepts upper- and mixed-case keys and stat words", () => {
    const receipt = parseReceipt(
      deliverSm(
        "ID:12345 SUB:001 DLVRD:001 SUBMIT DATE:2401020304 DONE DATE:2401020305 STAT:delivered ERR:000 Text:x",
      ),
    );
    expect(receipt).toMatchObject({ messageId: "12345", state: "delivered", err: "000", text: "x" });
  });

  it("tolerates missing fields, a missing text field and underscores in date keys", () => {
    expect(
      parseReceipt(deliverSm("id:77 submit_date:2401020304 done_date:2401020305 stat:EXPIRED err:0")),
    ).toMatchObject({
      messageId: "77",
      state: "expired",
      submitDate: "2401020304",
      text: undefined,
      sub: undefined,
    });
    expect(parseReceipt(deliverSm("id:78 stat:REJECTD"))).toMatchObject({
      messageId: "78",
      state: "rejected",
    });
  });

  it("prefers the receipted_message_id and message_state TLVs over the text", () => {
    const receipt = parseReceipt(
      deliverSm("id:999 stat:DELIVRD", { receipted_message_id: "ABCDEF", message_state: 5 }),
    );
    expect(receipt).toMatchObject({
      messageId: "ABCDEF",
      state: "undeliverable",
      messageState: 5,
      stat: "DELIVRD",
    });
  });

  it("reads a receipt carried by TLVs only", () => {
    const receipt = parseReceipt(
      deliverSm(Buffer.alloc(0), { esm_class: 0, receipted_message_id: "5f00", message_state: 2 }),
    );
    expect(receipt).toMatchObject({ messageId: "5f00", state: "delivered", isFinal: true });
  });

  it("keeps hex ids as written, with their decimal twin among the candidates", () => {
    const receipt = parseReceipt(deliverSm("id:1A2B3C sub:001 dlvrd:001 stat:DELIVRD"));
    expect(receipt?.messageId).toBe("1A2B3C");
    expect(messageIdCandidates("1A2B3C")).toContain("1715004");
    expect(messageIdCandidates("1715004")).toEqual(expect.arrayContaining(["1715004", "1a2b3c", "1A2B3C"]));
  });

  it("reads a receipt sent as UCS-2 and in message_payload", () => {
    const ucs2 = Buffer.from("id:42 stat:DELIVRD err:000", "utf16le").swap16();
    expect(parseReceipt(deliverSm(ucs2, { data_coding: 8 }))).toMatchObject({
      messageId: "42",
      state: "delivered",
    });
    const payload = parseReceipt(
      deliverSm(Buffer.alloc(0), { message_payload: Buffer.from("id:43 stat:ACCEPTD") }),
    );
    expect(payload).toMatchObject({ messageId: "43", state: "accepted", isFinal: false });
  });

  it("maps every stat word and message_state", () => {
    const states = [
      "DELIVRD",
      "UNDELIV",
      "REJECTD",
      "EXPIRED",
      "DELETED",
      "UNKNOWN",
      "ACCEPTD",
      "ENROUTE",
      "FAILED",
      "WHATEVER",
    ].map((stat) => parseReceipt(deliverSm(`id:1 stat:${stat}`))?.state);
    expect(states).toEqual([
      "delivered",
      "undeliverable",
      "rejected",
      "expired",
      "deleted",
      "unknown",
      "accepted",
      "enroute",
      "undeliverable",
      "unknown",
    ]);
    const byTlv = [1, 2, 3, 4, 5, 6, 7, 8].map(
      (state) => parseReceipt(deliverSm("", { receipted_message_id: "x", message_state: state }))?.state,
    );
    expect(byTlv).toEqual([
      "enroute",
      "delivered",
      "expired",
      "deleted",
      "undeliverable",
      "accepted",
      "unknown",
      "rejected",
    ]);
  });

  it("returns undefined for a mobile-originated message", () => {
    expect(parseReceipt(deliverSm("hello, my id: is secret", { esm_class: 0 }))).toBeUndefined();
    expect(parseReceipt(deliverSm("", { esm_class: 0x04 }))).toBeUndefined();
  });

  it("never throws on arbitrary text", () => {
    for (const text of ["", ":", "id:", "text:", "id:: stat::", "stat:DELIVRD", "\u0000\u00ff id:1"]) {
      expect(() => parseReceiptText(text)).not.toThrow();
      expect(() => parseReceipt(deliverSm(text))).not.toThrow();
    }
  });
});

describe("parseReceiptDate", () => {
  it("reads 10 and 12 digit dates as UTC and refuses others", () => {
    expect(parseReceiptDate("2401020304")?.toISOString()).toBe("2024-01-02T03:04:00.000Z");
    expect(parseReceiptDate("240102030455")?.toISOString()).toBe("2024-01-02T03:04:55.000Z");
    expect(parseReceiptDate("24010203")).toBeUndefined();
    expect(parseReceiptDate(undefined)).toBeUndefined();
  });
});
