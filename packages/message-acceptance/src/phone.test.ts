import { ApiError } from "@sms/errors";
import { normalizePhone } from "./phone";

describe("normalizePhone", () => {
  it("gives the E.164 form, the same the second time (from its cache)", () => {
    expect(normalizePhone("+1 (415) 555-0100")).toBe("+14155550100");
    expect(normalizePhone("+14155550100")).toBe("+14155550100");
    expect(normalizePhone("+44 7911 123456")).toBe("+447911123456");
  });

  it("refuses a number no plan has, every time, naming the field it was asked about", () => {
    for (const field of ["to", "phone", "messages[3].to"]) {
      let caught: unknown;
      try {
        normalizePhone("+1415555", field);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ApiError);
      expect(caught).toMatchObject({ code: "INVALID_PHONE", field });
    }
  });

  it("stays right past its bound (older verdicts are dropped, never confused)", () => {
    for (let i = 0; i < 10_050; i++) normalizePhone(`+1415555${String(i % 10_000).padStart(4, "0")}`);
    for (let i = 0; i < 10_010; i++) normalizePhone(`+447911${String(100000 + i)}`);
    expect(normalizePhone("+14155550100")).toBe("+14155550100");
    expect(() => normalizePhone("+1415555")).toThrow(ApiError);
  });
});
