import crypto from "node:crypto";
import { decodeSecret } from "./secret";

// A type, not an interface, so it is assignable to header records (verifyWebhook, fetch, got).
/** The three headers Standard Webhooks puts on every delivery. */
export type WebhookHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** What to sign: one secret, or several during a rotation (the old one keeps signing for 24 h). */
export type SignWebhookInput = ({ secret: string } | { secrets: readonly string[] }) & {
  /** The `evt_` id; the same on every retry so receivers can deduplicate. */
  id: string;
  /** When this attempt is sent: a Date or unix seconds. */
  timestamp: Date | number;
  /** The exact bytes that go on the wire: sign after JSON.stringify, never re-serialise. */
  body: string;
};

/** Unix seconds as the spec's integer header value; throws on anything else. */
export function toUnixSeconds(timestamp: Date | number): number {
  const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : timestamp;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new RangeError(`webhook timestamp must be a valid Date or whole unix seconds, got ${timestamp}`);
  }
  return seconds;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for one decoded key. */
export function computeSignature(key: Buffer, id: string, seconds: number, body: string): string {
  // The body is hashed as UTF-8, as the reference libraries do (TextEncoder / Buffer default).
  return "v1," + crypto.createHmac("sha256", key).update(`${id}.${seconds}.${body}`, "utf8").digest("base64");
}

// Decoded keys by secret: the worker signs every attempt with the same few secrets, and
// checking and decoding one (a regex over its base64, a Buffer) cost as much as its HMAC.
// Bounded so a process that sees many endpoints keeps only recent ones.
const KEYS_KEPT = 10_000;
const decodedKeys = new Map<string, Buffer>();

function keyOf(secret: string): Buffer {
  let key = decodedKeys.get(secret);
  if (key === undefined) {
    key = decodeSecret(secret);
    if (decodedKeys.size >= KEYS_KEPT) decodedKeys.clear();
    decodedKeys.set(secret, key);
  }
  return key;
}

/** The Standard Webhooks headers for one delivery attempt, signed with every given secret. */
export function signWebhook(input: SignWebhookInput): WebhookHeaders {
  const secrets = "secrets" in input ? input.secrets : [input.secret];
  if (secrets.length === 0) throw new RangeError("signWebhook needs at least one secret");
  // An id with whitespace or a "." would make the header or the signed content ambiguous.
  if (!/^[^\s.]+$/.test(input.id))
    throw new RangeError(`webhook id must be non-empty without spaces or dots`);
  const seconds = toUnixSeconds(input.timestamp);
  // Decode every secret before signing so one bad secret fails the whole call, not half a header.
  const keys = secrets.map(keyOf);
  return {
    "webhook-id": input.id,
    "webhook-timestamp": String(seconds),
    // The spec separates signatures with single spaces; receivers accept any entry that matches.
    "webhook-signature": keys.map((key) => computeSignature(key, input.id, seconds, input.body)).join(" "),
  };
}
