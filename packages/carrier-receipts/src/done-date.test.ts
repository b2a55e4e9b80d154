import { doneDateHasSeconds } from "./done-date";

describe("doneDateHasSeconds", () => {
  it("is false for the appendix B minute form and for nothing", () => {
    expect(doneDateHasSeconds("2611240722")).toBe(false);
    expect(doneDateHasSeconds(undefined)).toBe(false);
    expect(doneDateHasSeconds("2026-11-24T07:22Z")).toBe(false);
  });

  it("is true for YYMMDDhhmmss and ISO 8601 with seconds", () => {
    expect(doneDateHasSeconds("261124072213")).toBe(true);
    expect(doneDateHasSeconds("2026-11-24T07:22:13.5Z")).toBe(true);
  });
});
