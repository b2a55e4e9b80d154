import { processNice } from "./run-service";

describe("PROCESS_NICE", () => {
  it("is unset by default and takes an integer from 0 to 19", () => {
    expect(processNice(undefined)).toBeUndefined();
    expect(processNice("")).toBeUndefined();
    expect(processNice("0")).toBe(0);
    expect(processNice("10")).toBe(10);
    expect(processNice("19")).toBe(19);
  });

  it.each(["20", "-5", "1.5", "ten", " 5"])("refuses %j with a message naming the setting", (raw) => {
    expect(() => processNice(raw)).toThrow(/PROCESS_NICE: an integer from 0 to 19/);
  });
});
