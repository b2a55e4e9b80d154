import crypto from "node:crypto";
import type { RequestHandler } from "express";
import { verifyPassword } from "@sms/auth";
import { FailureThrottle } from "./failure-throttle";

export interface BasicAuthOptions {
  user: string;
  /** scrypt hash of the password (see hashPassword). */
  passwordHash: string;
  /** Shown by the browser's sign-in prompt. */
  realm: string;
  /**
   * How long a credential that passed stays accepted without another scrypt: the page
   * polls its API every few seconds, and each check costs 16 MiB and tens of ms.
   * @defaultValue 60000
   */
  rememberMs?: number;
  /**
   * Failed checks a client address may make before it has to wait (1 s, then doubling
   * with each further failure up to `maxDelayMs`); a check that passes clears its count.
   * @defaultValue 5
   */
  freeFailures?: number;
  /** @defaultValue 300000 */
  maxDelayMs?: number;
}

const MAX_REMEMBERED = 256;

/**
 * HTTP Basic authentication (RFC 7617) against one user and an scrypt password hash.
 * The user name is compared in constant time (over SHA-256 digests, so lengths leak
 * nothing), the password by scrypt and a constant-time compare; the password is always
 * checked, so a wrong user name costs as long as a wrong password. A client address that
 * keeps failing is answered 429 with Retry-After, without a scrypt, until its wait is over
 * (the address is the socket's: the console is not meant to sit behind a proxy).
 */
export function basicAuth(options: BasicAuthOptions): RequestHandler {
  const rememberMs = options.rememberMs ?? 60_000;
  const expectedUser = digest(options.user);
  // Digest of an accepted Authorization header → when it must be checked again.
  const remembered = new Map<string, number>();
  const throttle = new FailureThrottle({
    freeFailures: options.freeFailures ?? 5,
    maxDelayMs: options.maxDelayMs ?? 300_000,
  });
  const challenge = `Basic realm="${options.realm.replace(/["\\]/g, "")}", charset="UTF-8"`;

  return async (req, res, next) => {
    const header = req.headers.authorization ?? "";
    const key = digest(header).toString("base64");
    const until = remembered.get(key);
    if (until !== undefined && until > Date.now()) return next();
    remembered.delete(key);

    const credentials = parseBasic(header);
    let passed = false;
    if (credentials) {
      const client = req.socket.remoteAddress ?? "unknown";
      const waitMs = throttle.waitMs(client);
      if (waitMs > 0) {
        res.setHeader("Retry-After", String(Math.ceil(waitMs / 1000)));
        res
          .status(429)
          .type("text/plain")
          .send("Too many failed sign-ins from this address; try again later.\n");
        return;
      }
      throttle.begin(client);
      const userMatches = crypto.timingSafeEqual(digest(credentials.user), expectedUser);
      const passwordMatches = await verifyPassword(credentials.password, options.passwordHash);
      passed = userMatches && passwordMatches;
      if (passed) throttle.passed(client);
    }
    if (!passed) {
      res.setHeader("WWW-Authenticate", challenge);
      res.status(401).type("text/plain").send("Sign in with the operator credential.\n");
      return;
    }
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(key, Date.now() + rememberMs);
    next();
  };
}

function digest(value: string): Buffer {
  return crypto.createHash("sha256").update(value, "utf8").digest();
}

/** `Basic base64(user:password)`; the user name ends at the first colon (RFC 7617 §2). */
function parseBasic(header: string): { user: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
