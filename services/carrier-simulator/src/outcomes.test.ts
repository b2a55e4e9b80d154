import { CommandStatus } from "@sms/smpp";
import { MAGIC_SUFFIXES, pickOutcome, planSubmit, type PlanContext } from "./outcomes";

const context: PlanContext = {
  mix: { delivered: 100, undeliverable: 0, rejected: 0, expired: 0 },
  magicNumbers: true,
  magicThrottleTries: 2,
  priorTries: 0,
};

describe("planSubmit", () => {
  it("gives every magic suffix its fixed outcome", () => {
    const plans = MAGIC_SUFFIXES.map(({ suffix }) => planSubmit(`+44770090${suffix}`, context));
    expect(plans).toEqual([
      expect.objectContaining({ kind: "accept", receipt: "undeliverable" }),
      expect.objectContaining({ kind: "accept", receipt: "rejected" }),
      expect.objectContaining({ kind: "accept", receipt: "expired" }),
      { kind: "refuse", status: CommandStatus.ESME_RSUBMITFAIL },
      { kind: "refuse", status: CommandStatus.ESME_RTHROTTLED },
      expect.objectContaining({ kind: "accept", receipt: "none" }),
      expect.objectContaining({ kind: "accept", receipt: "delivered", duplicateReceipt: true }),
      expect.objectContaining({ kind: "accept", receipt: "delivered", receiptBeforeResponse: true }),
      { kind: "refuse", status: CommandStatus.ESME_RINVDSTADR },
      { kind: "ignore" },
      expect.objectContaining({ kind: "accept", receipt: "none", emptyMessageId: true }),
    ]);
  });

  it("throttles a …0005 number for the first N tries only", () => {
    const tries = [0, 1, 2, 3].map(
      (priorTries) => planSubmit("4477009000005", { ...context, priorTries }).kind,
    );
    expect(tries).toEqual(["refuse", "refuse", "accept", "accept"]);
  });

  it("uses the mix for ordinary numbers and for magic ones when magic numbers are off", () => {
    expect(planSubmit("+447700900123", context)).toMatchObject({ kind: "accept", receipt: "delivered" });
    expect(planSubmit("+447700900004", { ...context, magicNumbers: false })).toMatchObject({
      kind: "accept",
    });
  });
});

describe("pickOutcome", () => {
  it("follows the weights", () => {
    const mix = { delivered: 1, undeliverable: 1, rejected: 0, expired: 2 };
    expect([0, 0.24, 0.26, 0.49, 0.51, 0.99].map((point) => pickOutcome(mix, () => point))).toEqual([
      "delivered",
      "delivered",
      "undeliverable",
      "undeliverable",
      "expired",
      "expired",
    ]);
    expect(pickOutcome({ delivered: 0, undeliverable: 0, rejected: 0, expired: 0 })).toBe("delivered");
  });
});
