import { secondsUntilUtcMidnight, utcDayKey } from "./utc-day";

const at = (iso: string) => Date.parse(iso) / 1000;

describe("utcDayKey", () => {
  it("names the UTC day, not the local one", () => {
    expect(utcDayKey(at("2024-02-29T23:59:59Z"))).toBe("20240229");
    expect(utcDayKey(at("2024-03-01T00:00:00Z"))).toBe("20240301");
    expect(utcDayKey(0)).toBe("19700101");
  });

  it("ignores fractions of a second", () => {
    expect(utcDayKey(at("2025-12-31T23:59:59Z") + 0.999)).toBe("20251231");
  });
});

describe("secondsUntilUtcMidnight", () => {
  it("is a whole day at midnight and 1 in the day's last second", () => {
    expect(secondsUntilUtcMidnight(at("2025-06-01T00:00:00Z"))).toBe(86_400);
    expect(secondsUntilUtcMidnight(at("2025-06-01T23:59:59Z"))).toBe(1);
    expect(secondsUntilUtcMidnight(at("2025-06-01T12:00:00Z") + 0.7)).toBe(43_200);
  });
});
