import { computeBackoff } from "./backoff";

describe("computeBackoff", () => {
  it("grows exponentially up to the ceiling", () => {
    const noJitter = { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 };
    expect([0, 1, 2, 3, 4, 10].map((attempt) => computeBackoff(attempt, noJitter))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it("keeps jittered delays within [base * (1 - jitter), base]", () => {
    const options = { initialMs: 1000, maxMs: 1000, jitter: 0.5 };
    expect(computeBackoff(0, options, () => 0)).toBe(500);
    expect(computeBackoff(0, options, () => 1)).toBe(1000);
    for (let i = 0; i < 100; i++) {
      const delay = computeBackoff(3, options);
      expect(delay).toBeGreaterThanOrEqual(500);
      expect(delay).toBeLessThanOrEqual(1000);
    }
  });
});
