import { carrierIdForms } from "./id-forms";

describe("carrierIdForms", () => {
  it("adds the decimal twin of a hex id, and both cases of the hex", () => {
    expect(carrierIdForms("1f4a")).toEqual(["1F4A", "1f4a", "8010"].sort());
  });

  it("adds the hex twins of a decimal id (which also reads as hex)", () => {
    const forms = carrierIdForms("123");
    expect(forms).toEqual(expect.arrayContaining(["123", "7b", "7B"]));
  });

  it("keeps an id that is neither as it is", () => {
    expect(carrierIdForms(" msg-XYZ_1 ")).toEqual(["msg-XYZ_1"]);
  });

  it("is sorted, so locks are always taken in one order", () => {
    for (const id of ["a1b2c3d400000001", "99", "zz-1"]) {
      const forms = carrierIdForms(id);
      expect(forms).toEqual([...forms].sort());
    }
  });
});
