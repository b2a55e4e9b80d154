import { BULK_ITEMS_PER_TURN, MessageAcceptor } from "./acceptor";
import type { GroupCommitter } from "./group-committer";
import { dailyQuotaUsed, secondsToUtcMidnight } from "./group-committer";

const OPTIONS = { maxSegments: 10, creditsPerSegment: 1 };
const ACCOUNT = { id: "acc_01HZZZZZZZZZZZZZZZZZZZZZZZ", senderIds: new Set(["ACME"]) };

describe("MessageAcceptor.acceptBulk", () => {
  it("lets other requests have the event loop between slices of a large batch", async () => {
    let turnsBeforeCommit: number | undefined;
    let turns = 0;
    const committer = {
      commit: async () => {
        turnsBeforeCommit = turns;
      },
    } as unknown as GroupCommitter;
    const acceptor = new MessageAcceptor(committer, OPTIONS);
    const items = Array.from({ length: 1000 }, (_, i) => ({
      to: `+1415555${String(1000 + i)}`,
      message: `hello ${i}`,
    }));

    const result = acceptor.acceptBulk(ACCOUNT, { senderId: "ACME", items, maxItems: 10_000 });
    // What another request's callbacks would be: one per turn of the event loop until the commit.
    const tick = () =>
      setImmediate(() => {
        turns++;
        if (turnsBeforeCommit === undefined) tick();
      });
    tick();
    const { accepted, errors } = await result;

    expect(errors).toEqual([]);
    expect(accepted.map((item) => item.index)).toEqual(items.map((_, i) => i));
    // A turn between every two slices (the first turn counted is the second slice's): no slice
    // holds the loop for more than BULK_ITEMS_PER_TURN items. All in one go, this was 0.
    expect(turnsBeforeCommit).toBeGreaterThanOrEqual(items.length / BULK_ITEMS_PER_TURN - 2);
  });
});

describe("secondsToUtcMidnight", () => {
  it("counts whole seconds to the next 00:00 UTC, at least 1", () => {
    expect(secondsToUtcMidnight(Date.UTC(2026, 10, 28, 23, 59, 59, 500))).toBe(1);
    expect(secondsToUtcMidnight(Date.UTC(2026, 10, 28, 0, 0, 0))).toBe(86_400);
    expect(secondsToUtcMidnight(Date.UTC(2026, 11, 31, 12, 0, 0, 1))).toBe(43_200);
  });
});

describe("dailyQuotaUsed", () => {
  const now = Date.UTC(2026, 10, 28, 12);
  it("is the row's count on its day, none on another day or before any", () => {
    expect(dailyQuotaUsed({ quotaDay: new Date("2026-11-28T00:00:00Z"), quotaUsed: 7 }, now)).toBe(7);
    expect(dailyQuotaUsed({ quotaDay: new Date("2026-11-27T00:00:00Z"), quotaUsed: 7 }, now)).toBe(0);
    expect(dailyQuotaUsed({ quotaDay: null, quotaUsed: 0 }, now)).toBe(0);
  });
});
