import crypto from "node:crypto";
import {
  createSecretBox,
  needsSealing,
  openCarrierPassword,
  sealCarrierPassword,
  SecretBoxError,
} from "./index";

const box = createSecretBox(crypto.randomBytes(32).toString("base64"));

describe("carrier passwords", () => {
  it("opens a sealed password only on its own carrier", () => {
    const sealed = { id: "sim", password: "", passwordSealed: sealCarrierPassword(box, "sim", "pw123") };
    expect(sealed.passwordSealed).not.toContain("pw123");
    expect(openCarrierPassword(box, sealed)).toBe("pw123");
    expect(needsSealing(sealed)).toBe(false);
    expect(() => openCarrierPassword(box, { ...sealed, id: "other" })).toThrow(SecretBoxError);
  });

  it("reads a password still in clear, and a clear one written after sealing wins", () => {
    expect(openCarrierPassword(box, { id: "sim", password: "clear", passwordSealed: null })).toBe("clear");
    const rewritten = {
      id: "sim",
      password: "newer",
      passwordSealed: sealCarrierPassword(box, "sim", "old"),
    };
    expect(openCarrierPassword(box, rewritten)).toBe("newer");
    expect(needsSealing(rewritten)).toBe(true);
    expect(openCarrierPassword(box, { id: "sim", password: "", passwordSealed: null })).toBe("");
  });
});
