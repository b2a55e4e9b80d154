import { ApiError } from "@sms/errors";
import { readInboundBody } from "./inbound-body";

const base = { message_id: "c-1", from: "447911123456", to: "+14155550123" };

describe("readInboundBody", () => {
  it("keeps a whole text in GSM-7 when it fits, else UCS-2, with the carrier's id for dedup", () => {
    expect(readInboundBody({ ...base, text: "Hi {you} €" })).toEqual({
      from: "+447911123456",
      to: "+14155550123",
      dataCoding: 0,
      payload: Buffer.from([0x48, 0x69, 0x20, 0x1b, 0x28, 0x79, 0x6f, 0x75, 0x1b, 0x29, 0x20, 0x1b, 0x65]),
      part: null,
      flags: [],
      carrierMessageId: "c-1",
    });
    const arabic = readInboundBody({ ...base, text: "نعم" });
    expect(arabic).toMatchObject({ dataCoding: 8, payload: Buffer.from("نعم", "utf16le").swap16() });
  });

  it("takes hex with its data_coding as given; a short code stays digits; unknown fields are ignored", () => {
    expect(
      readInboundBody({ ...base, to: "46645", hex: "00ff", data_coding: 4, carrier_field: 1 }),
    ).toMatchObject({
      to: "46645",
      dataCoding: 4,
      payload: Buffer.from([0x00, 0xff]),
    });
  });

  it("reads a part as UCS-2 without a message id (parts are recognised by position); a total of 1 is whole", () => {
    const part = readInboundBody({ ...base, text: "abc", part: { reference: 7, total: 2, seq: 2 } });
    expect(part).toMatchObject({ dataCoding: 8, part: { reference: 7, total: 2, seq: 2 } });
    expect(part.carrierMessageId).toBeUndefined();
    expect(readInboundBody({ ...base, text: "abc", part: { reference: 7, total: 1, seq: 1 } })).toMatchObject(
      {
        dataCoding: 0,
        part: null,
        carrierMessageId: "c-1",
      },
    );
  });

  it.each([
    [{ ...base }, "text"],
    [{ ...base, text: "a", hex: "61" }, "text"],
    [{ ...base, hex: "61" }, "data_coding"],
    [{ ...base, text: "a", data_coding: 0 }, "data_coding"],
    [{ ...base, hex: "6", data_coding: 0 }, "hex"],
    [{ ...base, message_id: " ", text: "a" }, "message_id"],
    [{ ...base, text: "a", part: { reference: 1, total: 2, seq: 0 } }, "part.seq"],
    [{ ...base, text: "a", part: { reference: 70_000, total: 2, seq: 1 } }, "part.reference"],
    [{ ...base, text: "x".repeat(1601) }, "text"],
  ])("refuses bad body #%# naming its field", (body, field) => {
    let caught: unknown;
    try {
      readInboundBody(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect(caught).toMatchObject({ code: "VALIDATION_ERROR", options: { field } });
  });

  it("refuses a body that is not an object", () => {
    for (const body of [null, [1], "text", 3]) expect(() => readInboundBody(body)).toThrow(ApiError);
  });
});
