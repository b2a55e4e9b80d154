import fc from "fast-check";
import { DEFAULT_RETRY_SCHEDULE_MS, nextRetryDelay } from "./schedule";

describe("retry schedule", () => {
  it("is the documented one: 10 attempts over about three days", () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS).toHaveLength(9);
    const days = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0) / 86_400_000;
    expect(days).toBeGreaterThan(3);
    expect(days).toBeLessThan(3.3);
  });

  it("waits the scheduled time ±20%, and stops after the last step", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (n, r) => {
          const base = DEFAULT_RETRY_SCHEDULE_MS[n - 1]!;
          const delay = nextRetryDelay(n, DEFAULT_RETRY_SCHEDULE_MS, null, () => r)!;
          return delay >= base * 0.8 - 1 && delay <= base * 1.2 + 1;
        },
      ),
    );
    expect(nextRetryDelay(10, DEFAULT_RETRY_SCHEDULE_MS, null)).toBeNull();
    expect(nextRetryDelay(10, DEFAULT_RETRY_SCHEDULE_MS, 1000)).toBeNull();
  });

  it("honours a longer Retry-After, never a shorter one", () => {
    expect(nextRetryDelay(1, DEFAULT_RETRY_SCHEDULE_MS, 60_000, () => 0.5)).toBe(60_000);
    expect(nextRetryDelay(2, DEFAULT_RETRY_SCHEDULE_MS, 1_000, () => 0.5)).toBe(300_000);
  });
});
