import { findSenderIdProblem } from "./sender-id";

describe("findSenderIdProblem", () => {
  it.each([
    "DEMO",
    "A",
    "Acme Shop",
    "ABCDEFGHIJK",
    "Shop24",
    "1a",
    "+14155550100",
    "123456789012345",
    "12345",
  ])("accepts %j", (value) => {
    expect(findSenderIdProblem(value)).toBeUndefined();
  });

  it.each([
    ["", "empty"],
    ["ABCDEFGHIJKL", "at most 11"],
    ["1234567890123456", "at most 15 digits"],
    ["+1234567890123456", "at most 15 digits"],
    ["Acme-Shop", "only letters"],
    ["Café", "only letters"],
    ["+ACME", "only letters"],
    ["12 34", "at least one letter"],
    [" DEMO", "space"],
    ["DEMO ", "space"],
    ["   ", "space"],
  ])("rejects %j (%s)", (value, problem) => {
    expect(findSenderIdProblem(value)).toContain(problem);
  });
});
