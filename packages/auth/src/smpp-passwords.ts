import crypto from "node:crypto";
import { decoyPasswordHash, hashPassword, verifyPassword } from "./passwords";

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

// SMPP 3.4 caps a password at 8 octets (§4.1.1): the slow, salted hash of ./passwords is
// what stands between a leaked row and the password.

/** `scrypt$N$r$p$<salt b64>$<hash b64>` (see hashPassword). */
export const hashSmppPassword = hashPassword;

/** Checks a password against a stored hash in constant time; false for a malformed hash. */
export const verifySmppPassword = verifyPassword;

/** A hash of a random password: compared against when a system_id is unknown, so both answers take as long. */
export const decoySmppPasswordHash = decoyPasswordHash;
