import crypto from "node:crypto";

/** The hidden field every form posts its CSRF token in. */
export const CSRF_FIELD = "_csrf";

/**
 * True when the token a form posted is the one expected, compared in constant time
 * (over SHA-256 digests, so the comparison does not reveal the length either).
 */
export function csrfTokenMatches(expected: string | undefined, given: unknown): boolean {
  if (!expected || typeof given !== "string" || given.length === 0) return false;
  const digest = (value: string) => crypto.createHash("sha256").update(value).digest();
  return crypto.timingSafeEqual(digest(expected), digest(given));
}

/**
 * True when a POST's Origin (sent by every current browser on POST) names this host, or is
 * absent. A second line behind the token: a cross-site form post is refused before it is read.
 */
export function isSameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (!host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
