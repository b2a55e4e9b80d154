import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/*
 * The same `scrypt$N$r$p$<salt b64>$<hash b64>` form as @sms/auth's passwords (SMPP,
 * dashboard): an operator's password is chosen by a person, so a leaked setting must not
 * be cheap to guess from. N=2^14, r=8: about 16 MiB and 30-60 ms per check.
 */
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;
const FORM = /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/;

/** A salted scrypt hash of `password`, for OPS_CONSOLE_PASSWORD_HASH. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { ...PARAMS, maxmem: MAX_MEMORY });
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), hash.toString("base64")].join("$");
}

/** True when `stored` has the form hashPassword writes (checked at start, so a typo stops the service). */
export function isPasswordHash(stored: string): boolean {
  return FORM.test(stored);
}

/** Checks a password against a stored hash in constant time; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  let actual: Buffer;
  try {
    actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: MAX_MEMORY,
    });
  } catch {
    return false; // parameters scrypt refuses: never a match
  }
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}
