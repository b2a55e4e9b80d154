import { CommandStatus } from "@sms/smpp";

/** Final states the simulator's receipts report. */
export type ReceiptOutcome = "delivered" | "undeliverable" | "rejected" | "expired";

/** Relative weights of receipt outcomes for ordinary numbers; all zero means all delivered. */
export type OutcomeMix = Record<ReceiptOutcome, number>;

/** What the simulator does with one submit_sm. */
export type SubmitPlan =
  | { kind: "refuse"; status: number }
  | { kind: "ignore" }
  | {
      kind: "accept";
      receipt: ReceiptOutcome | "none";
      duplicateReceipt: boolean;
      receiptBeforeResponse: boolean;
      /** ESME_ROK with an empty message_id (carriers that do). */
      emptyMessageId: boolean;
    };

const accept = (
  receipt: ReceiptOutcome | "none",
  extra: Partial<Extract<SubmitPlan, { kind: "accept" }>> = {},
): SubmitPlan => ({
  kind: "accept",
  receipt,
  duplicateReceipt: false,
  receiptBeforeResponse: false,
  emptyMessageId: false,
  ...extra,
});

/**
 * Destination numbers (by their last four digits) with a fixed outcome, so tests and
 * users can force every path. README.md carries the same table.
 */
export const MAGIC_SUFFIXES: ReadonlyArray<{
  suffix: string;
  meaning: string;
  plan: SubmitPlan | "throttle-first-tries";
}> = [
  {
    suffix: "0001",
    meaning: "accepted, receipt UNDELIV (message_state 5, err 001)",
    plan: accept("undeliverable"),
  },
  {
    suffix: "0002",
    meaning: "accepted, receipt REJECTD (message_state 8, err 002)",
    plan: accept("rejected"),
  },
  {
    suffix: "0003",
    meaning: "accepted, receipt EXPIRED (message_state 3, err 003)",
    plan: accept("expired"),
  },
  {
    suffix: "0004",
    meaning: "refused: submit_sm_resp ESME_RSUBMITFAIL (0x45), no receipt",
    plan: { kind: "refuse", status: CommandStatus.ESME_RSUBMITFAIL },
  },
  {
    suffix: "0005",
    meaning: "ESME_RTHROTTLED (0x58) for the first N tries to this number, then delivered",
    plan: "throttle-first-tries",
  },
  { suffix: "0006", meaning: "accepted, no receipt ever", plan: accept("none") },
  {
    suffix: "0007",
    meaning: "accepted, DELIVRD receipt sent twice",
    plan: accept("delivered", { duplicateReceipt: true }),
  },
  {
    suffix: "0008",
    meaning: "accepted, DELIVRD receipt sent and acknowledged before the submit_sm_resp",
    plan: accept("delivered", { receiptBeforeResponse: true }),
  },
  {
    suffix: "0009",
    meaning: "refused: submit_sm_resp ESME_RINVDSTADR (0x0B), no receipt",
    plan: { kind: "refuse", status: CommandStatus.ESME_RINVDSTADR },
  },
  {
    suffix: "0010",
    meaning: "never answered (no submit_sm_resp): the client's response timeout fires",
    plan: { kind: "ignore" },
  },
  {
    suffix: "0011",
    meaning: "accepted with an empty message_id (status 0), no receipt",
    plan: accept("none", { emptyMessageId: true }),
  },
];

/** Inputs of planSubmit besides the destination. */
export interface PlanContext {
  mix: OutcomeMix;
  /** Whether magic numbers are honoured. */
  magicNumbers: boolean;
  /** How many times "…0005" is throttled before it is accepted. */
  magicThrottleTries: number;
  /** Earlier tries to this destination by this system_id (for "…0005"). */
  priorTries: number;
  random?: () => number;
}

/** Decides what happens to a submit_sm to `destination`. */
export function planSubmit(destination: string, context: PlanContext): SubmitPlan {
  const digits = destination.replace(/\D/g, "");
  const magic = context.magicNumbers
    ? MAGIC_SUFFIXES.find((entry) => digits.endsWith(entry.suffix))
    : undefined;
  if (magic?.plan === "throttle-first-tries") {
    return context.priorTries < context.magicThrottleTries
      ? { kind: "refuse", status: CommandStatus.ESME_RTHROTTLED }
      : accept("delivered");
  }
  if (magic) return magic.plan;
  return accept(pickOutcome(context.mix, context.random ?? Math.random));
}

/** Picks an outcome with probability proportional to its weight. */
export function pickOutcome(mix: OutcomeMix, random: () => number = Math.random): ReceiptOutcome {
  const entries = Object.entries(mix) as Array<[ReceiptOutcome, number]>;
  const total = entries.reduce((sum, [, weight]) => sum + Math.max(0, weight), 0);
  if (total <= 0) return "delivered";
  let point = random() * total;
  for (const [outcome, weight] of entries) {
    point -= Math.max(0, weight);
    if (point < 0) return outcome;
  }
  return "delivered";
}
