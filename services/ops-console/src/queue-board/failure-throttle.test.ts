import { FailureThrottle } from "./failure-throttle";

describe("FailureThrottle", () => {
  let now: number;
  const throttle = () => new FailureThrottle({ freeFailures: 3, maxDelayMs: 10_000, now: () => now });
  beforeEach(() => (now = 1_000_000));

  it("lets an address fail freeFailures times, then makes it wait 1 s, doubling up to the maximum", () => {
    const t = throttle();
    for (let i = 0; i < 2; i++) {
      expect(t.waitMs("10.0.0.1")).toBe(0);
      t.begin("10.0.0.1");
    }
    t.begin("10.0.0.1");
    expect(t.waitMs("10.0.0.1")).toBe(1_000);
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      now += t.waitMs("10.0.0.1");
      t.begin("10.0.0.1");
      waits.push(t.waitMs("10.0.0.1"));
    }
    expect(waits).toEqual([2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it("counts a check when it starts, so parallel tries cannot each get a hash", () => {
    const t = throttle();
    let allowed = 0;
    for (let i = 0; i < 100; i++) {
      if (t.waitMs("10.0.0.1") > 0) continue;
      t.begin("10.0.0.1");
      allowed += 1;
    }
    expect(allowed).toBe(3);
  });

  it("keeps addresses apart, and a check that passes clears the address's count", () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) t.begin("10.0.0.1");
    expect(t.waitMs("10.0.0.1")).toBeGreaterThan(0);
    expect(t.waitMs("10.0.0.2")).toBe(0);
    t.passed("10.0.0.1");
    expect(t.waitMs("10.0.0.1")).toBe(0);
  });

  it("forgets an address that has not failed for 15 minutes", () => {
    const t = throttle();
    for (let i = 0; i < 4; i++) t.begin("10.0.0.1");
    now += 15 * 60_000 + 1;
    expect(t.waitMs("10.0.0.1")).toBe(0);
    t.begin("10.0.0.1");
    expect(t.waitMs("10.0.0.1")).toBe(0);
  });
});
