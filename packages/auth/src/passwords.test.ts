import { decoyPasswordHash, hashPassword, verifyPassword } from "./passwords";

describe("passwords (scrypt)", () => {
  it("verifies the password it hashed and nothing else; a salt makes two hashes differ", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(hash).not.toContain("horse");
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
    expect(await hashPassword("correct horse battery staple")).not.toBe(hash);
  });

  it("refuses malformed stored hashes instead of throwing", async () => {
    for (const stored of ["", "x", "scrypt$1$8$1$$", "scrypt$3$8$1$c2FsdA==$aGFzaA==", "md5$a$b$c$d$e"])
      expect(await verifyPassword("x", stored)).toBe(false);
  });

  it("keeps one decoy hash that no guessable password matches", async () => {
    const decoy = await decoyPasswordHash();
    expect(await decoyPasswordHash()).toBe(decoy);
    expect(await verifyPassword("", decoy)).toBe(false);
  });
});
