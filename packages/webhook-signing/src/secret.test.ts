import { decodeSecret, generateSecret, InvalidWebhookSecretError } from "./secret";

describe("generateSecret", () => {
  it("makes whsec_ + base64 of 32 random bytes, different every time", () => {
    const secrets = Array.from({ length: 100 }, generateSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(decodeSecret(secret)).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });
});

describe("decodeSecret", () => {
  it.each([
    ["no prefix", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", /must start with "whsec_"/],
    ["an empty key", "whsec_", /followed by base64/],
    ["characters outside base64", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La!aSw", /followed by base64/],
    ["broken padding", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", /followed by base64/],
    ["too short a key (16 bytes)", "whsec_" + Buffer.alloc(16).toString("base64"), /24 to 64 bytes, got 16/],
    ["too long a key (65 bytes)", "whsec_" + Buffer.alloc(65).toString("base64"), /24 to 64 bytes, got 65/],
  ])("rejects a secret with %s, saying what is wrong", (_case, secret, message) => {
    expect(() => decodeSecret(secret)).toThrow(InvalidWebhookSecretError);
    expect(() => decodeSecret(secret)).toThrow(message);
  });
});
