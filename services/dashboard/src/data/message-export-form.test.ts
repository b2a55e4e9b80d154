import { defaultExportForm, parseExportForm } from "./message-export-form";

describe("parseExportForm", () => {
  it("reads UTC days with the last one included", () => {
    expect(parseExportForm({ since: "2026-10-01", until: "2026-10-01" })).toEqual({
      form: { since: "2026-10-01", until: "2026-10-01" },
      range: { since: new Date("2026-10-01T00:00:00Z"), until: new Date("2026-10-02T00:00:00Z") },
      errors: {},
    });
    expect(parseExportForm({ since: "2026-10-01", until: "2026-10-31" }).range?.until).toEqual(
      new Date("2026-11-01T00:00:00Z"),
    );
  });

  it("names the field at fault: missing or impossible days, reversed, more than 31 days", () => {
    expect(parseExportForm({}).errors).toEqual({
      since: "Enter the first day as YYYY-MM-DD.",
      until: "Enter the last day as YYYY-MM-DD.",
    });
    expect(parseExportForm({ since: "2026-02-30", until: "2026-03-01" }).errors.since).toMatch(/first day/);
    expect(parseExportForm({ since: "2026-10-05", until: "2026-10-04" }).errors.until).toMatch(/before/);
    const long = parseExportForm({ since: "2026-10-01", until: "2026-11-01" });
    expect(long).toMatchObject({ range: null, errors: { until: "Download at most 31 days at a time." } });
  });

  it("starts on the last seven days", () => {
    expect(defaultExportForm(new Date("2026-11-24T15:00:00Z")).form).toEqual({
      since: "2026-11-18",
      until: "2026-11-24",
    });
  });
});
