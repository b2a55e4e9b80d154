import crypto from "node:crypto";

/** What a key may do; a key created without a list may do everything. */
export const PERMISSIONS = ["sms:send", "sms:read", "otp:send", "otp:verify", "account:read"] as const;
export type Permission = (typeof PERMISSIONS)[number];

const KEY_PATTERN = /^sk_live_[A-Za-z0-9_-]{43}$/;
const VISIBLE_PREFIX_LENGTH = 12;

export interface NewApiKey {
  /** The whole key: shown once, never stored. */
  key: string;
  /** The first characters, stored and shown in listings. */
  prefix: string;
  /** SHA-256 hex of the whole key: the stored lookup value. */
  hash: string;
}

/** A new key `sk_live_<43 base64url chars>` carrying 256 random bits. */
export function generateApiKey(): NewApiKey {
  const key = `sk_live_${crypto.randomBytes(32).toString("base64url")}`;
  return { key, prefix: key.slice(0, VISIBLE_PREFIX_LENGTH), hash: hashApiKey(key) };
}

/**
 * SHA-256 of a key. A fast hash is right here: the key has 256 bits of entropy,
 * so there is nothing to brute-force, and lookups stay cheap on every request.
 */
export function hashApiKey(key: string): string {
  return crypto.createHash("sha256").update(key).digest("hex");
}

/** True when `value` has the shape of one of our keys (checked before any lookup). */
export function isWellFormedApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
