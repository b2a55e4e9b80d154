/** The cookies of a request (first value wins for a repeated name; undecodable values are skipped). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      /* malformed percent-encoding: as if absent */
    }
  }
  return cookies;
}

export interface CookieOptions {
  secure: boolean;
  /** Seconds; 0 deletes the cookie. Without it the cookie ends with the browser session. */
  maxAgeSeconds?: number;
}

/** A Set-Cookie value: always HttpOnly, SameSite=Lax and Path=/. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, "Path=/", "HttpOnly", "SameSite=Lax"];
  if (options.secure) parts.push("Secure");
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join("; ");
}

/**
 * Cookie names: with Secure, the __Host- prefix makes browsers refuse the cookie unless it
 * came over https from this very host with Path=/ and no Domain, so a sibling subdomain
 * cannot plant a session or CSRF cookie (RFC 6265bis §4.1.3.2).
 */
export function cookieNames(secure: boolean): { session: string; csrf: string } {
  const prefix = secure ? "__Host-" : "";
  return { session: `${prefix}sms_session`, csrf: `${prefix}sms_csrf` };
}
