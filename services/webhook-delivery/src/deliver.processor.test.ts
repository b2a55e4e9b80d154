import { capWait } from "./deliver.processor";

describe("capWait", () => {
  it("waits 100 ms the first time a job finds its endpoint full, doubling each time after", () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5].map((starts) => capWait(2000, starts, middle))).toEqual([
      100, 200, 400, 800, 1600,
    ]);
  });

  it("never waits longer than the bound (×1.5 at most), however often the job came back", () => {
    expect(capWait(2000, 6, () => 0.5)).toBe(2000);
    expect(capWait(2000, 1000, () => 0.999)).toBeLessThanOrEqual(3000);
    expect(capWait(2000, 0, () => 0)).toBe(50);
  });
});
