import { ApiError } from "@sms/errors";
import { readReceiptBody } from "./receipt-body";

describe("readReceiptBody", () => {
  it("reads the JSON form, with a numeric err and a receipt-style done date", () => {
    expect(
      readReceiptBody({ message_id: " 7b ", stat: "undeliv", err: 5, done_date: "2611212310", extra: 1 }),
    ).toEqual({
      carrierMessageId: "7b",
      state: "undeliverable",
      errorCode: "5",
      doneAt: new Date("2026-11-21T23:10:00Z"),
      doneAtHasSeconds: false,
      raw: { source: "http", message_id: "7b", stat: "undeliv", err: 5, done_date: "2611212310" },
    });
  });

  it("reads an ISO 8601 done date with a zone", () => {
    expect(
      readReceiptBody({ message_id: "a", stat: "DELIVRD", done_date: "2026-11-21T23:10:05+01:00" }).doneAt,
    ).toEqual(new Date("2026-11-21T22:10:05Z"));
  });

  it("reads the text form", () => {
    const text =
      "id:1234 sub:001 dlvrd:000 submit date:2611212300 done date:2611212301 stat:EXPIRED err:003 text:hi";
    expect(readReceiptBody({ text })).toEqual({
      carrierMessageId: "1234",
      state: "expired",
      errorCode: "003",
      doneAt: new Date("2026-11-21T23:01:00Z"),
      doneAtHasSeconds: false,
      raw: expect.objectContaining({ id: "1234", stat: "EXPIRED", err: "003" }),
    });
    expect(readReceiptBody({ text }).raw).not.toHaveProperty("text");
  });

  it.each([
    [null, "(body)"],
    [[], "(body)"],
    [{ message_id: "a" }, "stat"],
    [{ message_id: "x".repeat(65), stat: "DELIVRD" }, "message_id"],
    [{ message_id: "a", stat: "DELIVRD", done_date: "2026-11-21T23:10:05" }, "done_date"],
    [{ message_id: "a", stat: "DELIVRD", err: -1 }, "err"],
    [{ text: "stat:DELIVRD" }, "text"],
  ])("refuses %j (field %s)", (body, field) => {
    let thrown: unknown;
    try {
      readReceiptBody(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe("VALIDATION_ERROR");
    if (field !== "(body)") expect((thrown as ApiError).field).toBe(field);
  });
});
