import crypto from "node:crypto";

// Standard Webhooks marks symmetric secrets with this prefix so they cannot be mistaken for
// other credentials and so receivers' libraries know to base64-decode what follows.
export const SECRET_PREFIX = "whsec_";

// The spec (standard-webhooks.md, "Signature scheme") says secrets SHOULD be 24 to 64 bytes;
// we generate 32 (the HMAC-SHA256 block-size sweet spot) and accept the whole range on input.
const SECRET_BYTES = 32;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

// Canonical padded base64 only: Buffer.from(…, "base64") silently skips bad characters, which
// would turn a typo in a pasted secret into a different key instead of an error.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Thrown when a secret is not `whsec_` + canonical base64 of 24 to 64 bytes. */
export class InvalidWebhookSecretError extends Error {
  override readonly name = "InvalidWebhookSecretError";
}

/** A new endpoint secret: `whsec_` + base64 of 32 bytes from the CSPRNG. */
export function generateSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(SECRET_BYTES).toString("base64");
}

/** The HMAC key inside a `whsec_` secret; throws InvalidWebhookSecretError if it is malformed. */
export function decodeSecret(secret: string): Buffer {
  if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX)) {
    throw new InvalidWebhookSecretError(`webhook secret must start with "${SECRET_PREFIX}"`);
  }
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (encoded.length === 0 || !BASE64.test(encoded)) {
    throw new InvalidWebhookSecretError(`webhook secret must be "${SECRET_PREFIX}" followed by base64`);
  }
  const key = Buffer.from(encoded, "base64");
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    throw new InvalidWebhookSecretError(
      `webhook secret must decode to ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes, got ${key.length}`,
    );
  }
  return key;
}
