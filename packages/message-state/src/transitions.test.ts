import {
  MESSAGE_STATUSES,
  allowedFrom,
  canTransition,
  isMessageStatus,
  isTerminal,
  mayRefund,
  outboxEventType,
  type MessageStatus,
} from "./transitions";

// The whole table, written out so a change to the rules shows up as a change here (docs/messages.md#transitions).
const ALLOWED = new Set([
  "scheduled→queued",
  "scheduled→canceled",
  "scheduled→failed",
  "queued→sent",
  "queued→delivered",
  "queued→failed",
  "sent→delivered",
  "sent→failed",
]);

const pairs = MESSAGE_STATUSES.flatMap((from) => MESSAGE_STATUSES.map((to) => [from, to] as const));

describe("canTransition", () => {
  it("checks all 36 pairs", () => {
    expect(pairs).toHaveLength(36);
  });

  it.each(pairs)("%s → %s follows docs/messages.md#transitions", (from, to) => {
    expect(canTransition(from, to)).toBe(ALLOWED.has(`${from}→${to}`));
  });

  it("never moves a status to itself", () => {
    for (const status of MESSAGE_STATUSES) expect(canTransition(status, status)).toBe(false);
  });

  it("never moves backwards in the lifecycle", () => {
    const rank: Record<MessageStatus, number> = {
      scheduled: 0,
      queued: 1,
      sent: 2,
      delivered: 3,
      failed: 3,
      canceled: 1,
    };
    for (const [from, to] of pairs) if (canTransition(from, to)) expect(rank[to]).toBeGreaterThan(rank[from]);
  });

  it("lets a receipt apply to a message whose submit response is not recorded yet", () => {
    expect(canTransition("queued", "delivered")).toBe(true);
    expect(canTransition("queued", "failed")).toBe(true);
  });

  it("refuses to cancel anything but a scheduled message", () => {
    for (const from of MESSAGE_STATUSES) expect(canTransition(from, "canceled")).toBe(from === "scheduled");
  });
});

describe("isTerminal", () => {
  it.each(MESSAGE_STATUSES)("%s is terminal exactly when nothing leaves it", (status) => {
    expect(isTerminal(status)).toBe(["delivered", "failed", "canceled"].includes(status));
    expect(isTerminal(status)).toBe(MESSAGE_STATUSES.every((to) => !canTransition(status, to)));
  });
});

describe("allowedFrom", () => {
  it.each(MESSAGE_STATUSES)("lists every status that may move to %s", (to) => {
    expect(allowedFrom(to).sort()).toEqual(
      MESSAGE_STATUSES.filter((from) => ALLOWED.has(`${from}→${to}`)).sort(),
    );
  });

  it("is empty for scheduled: nothing becomes scheduled again", () => {
    expect(allowedFrom("scheduled")).toEqual([]);
  });
});

describe("outboxEventType", () => {
  it("names the four events of the interface and nothing for the others", () => {
    expect(Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, outboxEventType(s)]))).toEqual({
      scheduled: null,
      queued: "message.queued",
      sent: "message.sent",
      delivered: "message.delivered",
      failed: "message.failed",
      canceled: null,
    });
  });
});

describe("mayRefund / isMessageStatus", () => {
  it("considers a refund only on failed and canceled", () => {
    expect(MESSAGE_STATUSES.filter(mayRefund)).toEqual(["failed", "canceled"]);
  });

  it("recognizes exactly the six statuses", () => {
    for (const status of MESSAGE_STATUSES) expect(isMessageStatus(status)).toBe(true);
    for (const other of ["", "QUEUED", "cancelled", "pending", null, 1, undefined])
      expect(isMessageStatus(other)).toBe(false);
  });
});
