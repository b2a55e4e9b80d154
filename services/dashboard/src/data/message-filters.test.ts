import fc from "fast-check";
import { parseMessageFilters } from "./message-filters";

describe("parseMessageFilters", () => {
  it("parses a full search; dates are whole UTC days, the end date inclusive", () => {
    const parsed = parseMessageFilters({
      to: "+44 (7700) 900-123",
      status: "delivered",
      from: "2026-11-01",
      until: "2026-11-02",
      batch: "bat_01JD0000000000000000000000",
    });
    expect(parsed.errors).toEqual({});
    expect(parsed.filters).toEqual({
      to: "+447700900123",
      status: "delivered",
      from: new Date("2026-11-01T00:00:00Z"),
      until: new Date("2026-11-03T00:00:00Z"),
      batchId: "bat_01JD0000000000000000000000",
    });
  });

  it("names the field of each mistake and keeps what was typed", () => {
    const parsed = parseMessageFilters({
      to: "0770",
      status: "lost",
      from: "2026-02-30",
      until: "yesterday",
      batch: "msg_1",
    });
    expect(Object.keys(parsed.errors).sort()).toEqual(["batch", "from", "status", "to", "until"]);
    expect(parsed.filters).toEqual({});
    expect(parsed.form.to).toBe("0770");
  });

  it("refuses an end before the start", () => {
    expect(parseMessageFilters({ from: "2026-11-02", until: "2026-11-01" }).errors.until).toContain(
      "on or after",
    );
  });

  it("never throws on anything a query string can hold", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("to", "status", "from", "until", "batch", "x"), fc.anything()),
        (query) => {
          parseMessageFilters(query);
        },
      ),
    );
  });
});
