import { generateApiKey, hashApiKey, isWellFormedApiKey } from "./api-keys";

describe("api keys", () => {
  it("generates well-formed, distinct keys whose hash is stable", () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(isWellFormedApiKey(a.key)).toBe(true);
    expect(a.key).not.toBe(b.key);
    expect(a.hash).toBe(hashApiKey(a.key));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.key.startsWith(a.prefix)).toBe(true);
  });

  it("rejects malformed keys before any lookup", () => {
    expect(isWellFormedApiKey("sk_live_short")).toBe(false);
    expect(isWellFormedApiKey(`sk_test_${"a".repeat(43)}`)).toBe(false);
    expect(isWellFormedApiKey(`sk_live_${"a".repeat(43)}\n`)).toBe(false);
  });
});
