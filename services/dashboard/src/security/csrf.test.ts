import { generateSecretToken } from "@sms/auth";
import { csrfTokenMatches, isSameOrigin } from "./csrf";
import { cookieNames, parseCookies, serializeCookie } from "./cookies";

describe("csrfTokenMatches", () => {
  const token = generateSecretToken();

  it("accepts only the exact token", () => {
    expect(csrfTokenMatches(token, token)).toBe(true);
    expect(csrfTokenMatches(token, token.slice(0, -1))).toBe(false);
    expect(csrfTokenMatches(token, `${token}x`)).toBe(false);
    expect(csrfTokenMatches(token, generateSecretToken())).toBe(false);
  });

  it("refuses a missing token, a missing expectation and non-strings (qs arrays, objects)", () => {
    for (const given of [undefined, null, "", [token], { token }, 42])
      expect(csrfTokenMatches(token, given)).toBe(false);
    expect(csrfTokenMatches(undefined, token)).toBe(false);
    expect(csrfTokenMatches("", "")).toBe(false);
  });
});

describe("isSameOrigin", () => {
  it("accepts this host or no Origin, refuses other hosts, ports and garbage", () => {
    expect(isSameOrigin(undefined, "dash.example.com")).toBe(true);
    expect(isSameOrigin("https://dash.example.com", "dash.example.com")).toBe(true);
    expect(isSameOrigin("http://127.0.0.1:3100", "127.0.0.1:3100")).toBe(true);
    expect(isSameOrigin("https://evil.example", "dash.example.com")).toBe(false);
    expect(isSameOrigin("http://127.0.0.1:3101", "127.0.0.1:3100")).toBe(false);
    expect(isSameOrigin("null", "dash.example.com")).toBe(false);
    expect(isSameOrigin("https://dash.example.com", undefined)).toBe(false);
  });
});

describe("cookies", () => {
  it("serializes HttpOnly, SameSite=Lax cookies, Secure when asked", () => {
    expect(serializeCookie("a", "b c", { secure: true, maxAgeSeconds: 60 })).toBe(
      "a=b%20c; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=60",
    );
    expect(serializeCookie("a", "", { secure: false, maxAgeSeconds: 0 })).toBe(
      "a=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0",
    );
  });

  it("parses a Cookie header, first value wins, malformed parts are skipped", () => {
    const cookies = parseCookies("a=1; b=x%20y; a=2; junk; c=%E0%A4%A");
    expect([...cookies]).toEqual([
      ["a", "1"],
      ["b", "x y"],
    ]);
    expect(parseCookies(undefined).size).toBe(0);
  });

  it("uses __Host- names only with Secure", () => {
    expect(cookieNames(true)).toEqual({ session: "__Host-sms_session", csrf: "__Host-sms_csrf" });
    expect(cookieNames(false)).toEqual({ session: "sms_session", csrf: "sms_csrf" });
  });
});
