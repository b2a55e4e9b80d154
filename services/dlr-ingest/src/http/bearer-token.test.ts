import type { Request } from "express";
import { hashSecretToken } from "@sms/auth";
import { hasBearerToken } from "./bearer-token";

const TOKEN = "receipt-token-0123456789";
const withAuthorization = (value: string | undefined) =>
  ({ get: (name: string) => (name.toLowerCase() === "authorization" ? value : undefined) }) as Request;

describe("hasBearerToken", () => {
  it("accepts the token under any case of the scheme, with spaces around it", () => {
    for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER   ${TOKEN}  `])
      expect(hasBearerToken(withAuthorization(header), hashSecretToken(TOKEN))).toBe(true);
  });

  it("refuses another token, a prefix of it, another scheme and no header", () => {
    for (const header of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`,
      `Basic ${TOKEN}`,
      `Bearer`,
      undefined,
    ])
      expect(hasBearerToken(withAuthorization(header), hashSecretToken(TOKEN))).toBe(false);
  });

  it("refuses every token when none is expected or the expected hash is not one", () => {
    for (const expected of [null, undefined, "", "not-a-sha256"])
      expect(hasBearerToken(withAuthorization(`Bearer ${TOKEN}`), expected)).toBe(false);
  });
});
