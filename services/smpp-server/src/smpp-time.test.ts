import { parseSmppTime } from "./smpp-time";

describe("parseSmppTime", () => {
  const now = new Date("2026-11-22T10:00:00Z");

  it("reads absolute times with their offset from UTC", () => {
    expect(parseSmppTime("261122120000000+", now)).toEqual(new Date("2026-11-22T12:00:00Z"));
    expect(parseSmppTime("261122120000004+", now)).toEqual(new Date("2026-11-22T11:00:00Z"));
    expect(parseSmppTime("261122120000508-", now)).toEqual(new Date("2026-11-22T14:00:00.500Z"));
  });

  it("reads relative times from now", () => {
    expect(parseSmppTime("000001020304000R", now)).toEqual(new Date("2026-11-23T12:03:04Z"));
  });

  it("gives null for an empty field and undefined for anything malformed", () => {
    expect(parseSmppTime("", now)).toBeNull();
    for (const bad of [
      "2611221200",
      "261322120000000+",
      "260431120000000+",
      "261122250000000+",
      "261122120000049+",
      "26112212000000X+",
    ])
      expect(parseSmppTime(bad, now)).toBeUndefined();
  });
});
