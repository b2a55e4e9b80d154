import { hourlyChart, niceCeiling } from "./chart";

describe("niceCeiling", () => {
  it("rounds up to 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 3, 7, 10, 11, 180, 501].map(niceCeiling)).toEqual([1, 1, 5, 10, 10, 20, 200, 1000]);
  });
});

describe("hourlyChart", () => {
  const start = Date.parse("2026-11-22T00:00:00Z");
  const buckets = Array.from({ length: 24 }, (_, i) => ({
    start: new Date(start + i * 3600_000),
    counts: i === 5 ? { delivered: 8, failed: 2 } : {},
  }));

  it("draws one rect per status present, sized against the axis maximum", () => {
    const svg = hourlyChart(buckets).value;
    const rects = [...svg.matchAll(/<rect\s[^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
    // Axis top 10, plot height 200: 8 → 160, 2 → 40.
    expect(rects).toEqual([160, 40]);
    expect(svg).toContain("05:00: 8 delivered");
    expect(svg).toContain("10 messages in 24 hours");
  });

  it("lists every hour in the table, zeros included", () => {
    const svg = hourlyChart(buckets).value;
    expect(svg.match(/<th scope="row">/g)).toHaveLength(24);
  });
});
