import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * scrypt cost: SMPP 3.4 caps a password at 8 octets (§4.1.1), so unlike an API key it
 * can be guessed offline from a leaked hash; a slow, salted hash is what stands in the
 * way. N=2^14, r=8 is about 16 MiB and 30-60 ms per bind here: binds are rare.
 */
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** SMPP 3.4 §4.1.1: system_id is at most 15 octets, password at most 8 (C-Octet strings of 16 and 9). */
export const SMPP_SYSTEM_ID_MAX = 15;
export const SMPP_PASSWORD_MAX = 8;

const SYSTEM_ID_PATTERN = /^[A-Za-z0-9_.-]{1,15}$/;
const PASSWORD_PATTERN = /^[\x21-\x7e]{1,8}$/;

/** True for a system_id we issue: 1-15 letters, digits, `_`, `.` or `-`. */
export function isValidSystemId(value: string): boolean {
  return SYSTEM_ID_PATTERN.test(value);
}

/** True for a password SMPP 3.4 can carry: 1-8 printable ASCII characters, no spaces. */
export function isValidSmppPassword(value: string): boolean {
  return PASSWORD_PATTERN.test(value);
}

/** A random 8-character password from an alphabet without look-alikes (about 46 bits). */
export function generateSmppPassword(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789";
  let password = "";
  for (let i = 0; i < SMPP_PASSWORD_MAX; i++) password += alphabet[crypto.randomInt(alphabet.length)];
  return password;
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: the parameters travel with the hash so they can be raised later. */
export async function hashSmppPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), hash.toString("base64")].join("$");
}

/** Checks a password against a stored hash in constant time; false for a malformed hash. */
export async function verifySmppPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  let actual: Buffer;
  try {
    actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: 64 * 1024 * 1024,
    });
  } catch {
    return false; // parameters scrypt refuses: a corrupt row, never a match
  }
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

/** A hash of a random password: compared against when a system_id is unknown, so both answers take as long. */
let decoy: Promise<string> | undefined;
export function decoySmppPasswordHash(): Promise<string> {
  return (decoy ??= hashSmppPassword(crypto.randomBytes(6).toString("base64")));
}
