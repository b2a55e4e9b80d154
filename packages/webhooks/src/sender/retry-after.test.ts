import { parseRetryAfter } from "./retry-after";

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-22T10:00:00Z");
  it("reads delta seconds and HTTP dates, capped", () => {
    expect(parseRetryAfter("120", now, 1e9)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now, 1e9)).toBe(0);
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:01:30 GMT", now, 1e9)).toBe(90_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", now, 1e9)).toBe(0);
    expect(parseRetryAfter("86400000", now, 3_600_000)).toBe(3_600_000);
  });
  it("ignores what it cannot read", () => {
    expect(parseRetryAfter(undefined, now, 1e9)).toBeNull();
    expect(parseRetryAfter("soon", now, 1e9)).toBeNull();
    expect(parseRetryAfter("-5", now, 1e9)).toBeNull();
  });
});
