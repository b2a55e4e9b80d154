import {
  generateSmppPassword,
  hashSmppPassword,
  isValidSmppPassword,
  isValidSystemId,
  verifySmppPassword,
} from "./smpp-passwords";

describe("SMPP passwords", () => {
  it("verifies the password it hashed and nothing else; two hashes of one password differ (salt)", async () => {
    const hash = await hashSmppPassword("s3cret!");
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(hash).not.toContain("s3cret!");
    expect(await verifySmppPassword("s3cret!", hash)).toBe(true);
    expect(await verifySmppPassword("s3cret", hash)).toBe(false);
    expect(await verifySmppPassword("", hash)).toBe(false);
    expect(await hashSmppPassword("s3cret!")).not.toBe(hash);
  });

  it("refuses malformed stored hashes instead of throwing", async () => {
    for (const stored of [
      "",
      "plain",
      "scrypt$1$8$1$$",
      "bcrypt$x$y$z$a$b",
      "scrypt$3$8$1$c2FsdA==$aGFzaA==",
    ])
      expect(await verifySmppPassword("x", stored)).toBe(false);
  });

  it("generates 8-character passwords SMPP 3.4 can carry", () => {
    const seen = new Set(Array.from({ length: 50 }, generateSmppPassword));
    expect(seen.size).toBe(50);
    for (const password of seen) expect(isValidSmppPassword(password)).toBe(true);
  });

  it("accepts system ids of 1-15 safe characters and passwords of 1-8 printable ones", () => {
    expect(isValidSystemId("acme_01")).toBe(true);
    expect(isValidSystemId("a".repeat(16))).toBe(false);
    expect(isValidSystemId("has space")).toBe(false);
    expect(isValidSmppPassword("12345678")).toBe(true);
    expect(isValidSmppPassword("123456789")).toBe(false);
    expect(isValidSmppPassword("")).toBe(false);
  });
});
