import crypto from "node:crypto";
import { createSecretBox, parseEncryptionKey, SecretBoxError } from "./index";

const key = crypto.randomBytes(32).toString("base64");

describe("secret-box", () => {
  it("opens what it sealed, under the same context", () => {
    const box = createSecretBox(key);
    const sealed = box.seal("whsec_abc", "acc_1");
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain("whsec_abc");
    expect(box.open(sealed, "acc_1")).toBe("whsec_abc");
  });

  it("seals the same text differently each time (fresh IV)", () => {
    const box = createSecretBox(key);
    expect(box.seal("x", "c")).not.toBe(box.seal("x", "c"));
  });

  it("refuses another context, another key, and a tampered value", () => {
    const box = createSecretBox(key);
    const sealed = box.seal("whsec_abc", "acc_1");
    expect(() => box.open(sealed, "acc_2")).toThrow(SecretBoxError);
    expect(() => createSecretBox(crypto.randomBytes(32).toString("base64")).open(sealed, "acc_1")).toThrow(
      SecretBoxError,
    );
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[2] ?? "", "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[2] = flipped.toString("base64url");
    expect(() => box.open(parts.join("."), "acc_1")).toThrow(SecretBoxError);
    expect(() => box.open("garbage", "acc_1")).toThrow(SecretBoxError);
  });

  it("refuses a truncated tag (GCM would check only the bytes it is given)", () => {
    const box = createSecretBox(key);
    const [version, iv, ciphertext, tag] = box.seal("whsec_abc", "acc_1").split(".");
    for (const bytes of [4, 8, 12, 15]) {
      const short = Buffer.from(tag ?? "", "base64url")
        .subarray(0, bytes)
        .toString("base64url");
      expect(() => box.open([version, iv, ciphertext, short].join("."), "acc_1")).toThrow(SecretBoxError);
    }
  });

  it("accepts only a 32-byte base64 key", () => {
    expect(() => parseEncryptionKey(crypto.randomBytes(16).toString("base64"))).toThrow(/32 random bytes/);
    expect(() => parseEncryptionKey("not base64 at all!!")).toThrow(SecretBoxError);
    expect(parseEncryptionKey(key)).toHaveLength(32);
  });
});
