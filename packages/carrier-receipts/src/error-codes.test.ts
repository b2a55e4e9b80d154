import { describeReceiptFailure, isFailedReceiptState } from "./error-codes";

describe("receipt failures", () => {
  it("fails on undeliverable, rejected, expired and deleted only", () => {
    const states = [
      "delivered",
      "undeliverable",
      "rejected",
      "expired",
      "deleted",
      "unknown",
      "accepted",
      "enroute",
    ] as const;
    expect(states.filter(isFailedReceiptState)).toEqual(["undeliverable", "rejected", "expired", "deleted"]);
  });

  it("quotes the carrier's err value in the message", () => {
    expect(describeReceiptFailure("expired", "003")).toEqual({
      errorCode: "EXPIRED",
      errorMessage: "The message expired before the carrier could deliver it (carrier error 003).",
    });
    expect(describeReceiptFailure("rejected").errorMessage).toBe("The carrier rejected the message.");
  });
});
