import { receiptKeyForSubmit, receiptKeyOf } from "./receipt-keys";

describe("receiptKeyOf", () => {
  it("drops the padding and the case of a hexadecimal-digit id", () => {
    expect(receiptKeyOf("000018")).toBe("18");
    expect(receiptKeyOf(" 00A1b ")).toBe("a1b");
    expect(receiptKeyOf("0000")).toBe("0");
  });

  it("keeps any other id as it is (trimmed)", () => {
    expect(receiptKeyOf(" msg-XYZ_01 ")).toBe("msg-XYZ_01");
    expect(receiptKeyOf("  ")).toBeNull();
  });
});

describe("receiptKeyForSubmit", () => {
  it("as_is: the id itself, normalised; never a twin", () => {
    expect(receiptKeyForSubmit("18", "as_is")).toBe("18");
    expect(receiptKeyForSubmit("0018", "as_is")).toBe(receiptKeyOf("18"));
  });

  it("decimal: a hexadecimal response id as the decimal receipts quote", () => {
    expect(receiptKeyForSubmit("18", "decimal")).toBe("24");
    expect(receiptKeyForSubmit("00FF", "decimal")).toBe("255");
  });

  it("hex: a decimal response id as the hexadecimal receipts quote", () => {
    expect(receiptKeyForSubmit("24", "hex")).toBe("18");
    expect(receiptKeyForSubmit("0", "hex")).toBe("0");
    expect(receiptKeyForSubmit("12345678901234567890", "hex")).toBe("ab54a98ceb1f0ad2");
  });

  it("an id that is no number in the form's base is taken as it is", () => {
    expect(receiptKeyForSubmit("msg-1", "hex")).toBe("msg-1");
    expect(receiptKeyForSubmit("1a", "hex")).toBe("1a");
  });
});
