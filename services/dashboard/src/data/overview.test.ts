import { deliveryRate, toBuckets } from "./overview";

describe("deliveryRate", () => {
  it("is delivered over final messages, null before any", () => {
    expect(deliveryRate({})).toBeNull();
    expect(deliveryRate({ queued: 5, sent: 2 })).toBeNull();
    expect(deliveryRate({ delivered: 3, failed: 1, sent: 10 })).toBe(0.75);
    expect(deliveryRate({ failed: 2 })).toBe(0);
  });
});

describe("toBuckets", () => {
  it("places rows in their hour and keeps empty hours as zeros", () => {
    const firstHour = new Date("2026-11-21T13:00:00Z");
    const h0 = firstHour.getTime() / 3600_000;
    const buckets = toBuckets(
      [
        { hour: h0, status: "delivered", n: 4 },
        { hour: h0 + 23, status: "failed", n: 1 },
        { hour: h0 + 24, status: "failed", n: 9 },
        { hour: h0 - 1, status: "failed", n: 9 },
      ],
      firstHour,
    );
    expect(buckets).toHaveLength(24);
    expect(buckets[0]).toEqual({ start: firstHour, counts: { delivered: 4 } });
    expect(buckets[23]).toEqual({ start: new Date("2026-11-22T12:00:00Z"), counts: { failed: 1 } });
    expect(buckets.slice(1, 23).every((b) => Object.keys(b.counts).length === 0)).toBe(true);
  });
});
