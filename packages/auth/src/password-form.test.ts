import { hashPassword, isPasswordHash, verifyPassword } from "./passwords";

describe("password hashes: form and verification", () => {
  it("verifies the password it hashed and nothing else; each hash has its own salt", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(isPasswordHash(hash)).toBe(true);
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    await expect(verifyPassword("correct horse battery staple", hash)).resolves.toBe(true);
    await expect(verifyPassword("correct horse battery stapl", hash)).resolves.toBe(false);
    await expect(verifyPassword("", hash)).resolves.toBe(false);
    expect(await hashPassword("correct horse battery staple")).not.toBe(hash);
  });

  it("refuses malformed or hostile settings without throwing", async () => {
    for (const bad of ["", "plain", "sha256$abc", "scrypt$16384$8$1$$", "scrypt$x$8$1$c2FsdA==$aGFzaA=="]) {
      expect(isPasswordHash(bad)).toBe(false);
      await expect(verifyPassword("anything", bad)).resolves.toBe(false);
    }
    // Parameters scrypt refuses (N not a power of two, memory over the cap) are never a match.
    await expect(verifyPassword("x", "scrypt$1000$8$1$c2FsdA==$aGFzaA==")).resolves.toBe(false);
    await expect(verifyPassword("x", "scrypt$1048576$64$1$c2FsdA==$aGFzaA==")).resolves.toBe(false);
  });
});
