import crypto from "node:crypto";
import {
  createSecretBox,
  needsSealing,
  openCarrierPassword,
  openCarrierPasswords,
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

  it("leaves out a carrier whose password does not open and logs which, with what to do", () => {
    const logged: Array<{ message: string; meta: { carrierId: string; error: string } }> = [];
    const logger = {
      error: (message: string, meta: { carrierId: string; error: string }) => logged.push({ message, meta }),
    };
    const otherKey = createSecretBox(crypto.randomBytes(32).toString("base64"));
    const rows = [
      { id: "good", password: "", passwordSealed: sealCarrierPassword(box, "good", "pw") },
      { id: "foreign", password: "", passwordSealed: sealCarrierPassword(otherKey, "foreign", "pw") },
    ];
    expect(openCarrierPasswords(box, rows, logger)).toEqual([{ id: "good", password: "pw" }]);
    expect(logged).toEqual([
      {
        message: "carrier password does not open with this key; set it again (admin carrier update)",
        meta: { carrierId: "foreign", error: expect.stringContaining("does not open") },
      },
    ]);
  });
});
