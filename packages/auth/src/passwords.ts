import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * scrypt cost for passwords people choose (SMPP passwords, dashboard sign-in, the ops
 * console's credential): unlike an
 * API key they can be guessed offline from a leaked hash; a slow, salted hash is what
 * stands in the way. N=2^14, r=8 is about 16 MiB and 30-60 ms per check here.
 */
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;
const FORM = /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/;

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { ...PARAMS, maxmem: MAX_MEMORY });
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), hash.toString("base64")].join("$");
}

/** True when `stored` has the form hashPassword writes (a setting checked at start, so a typo stops the service). */
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
    return false; // parameters scrypt refuses: a corrupt row, never a match
  }
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

/** A hash of a random password: compared against when a user is unknown, so both answers take as long. */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  return (decoy ??= hashPassword(crypto.randomBytes(12).toString("base64")));
}
