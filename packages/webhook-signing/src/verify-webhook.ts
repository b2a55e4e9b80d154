import crypto from "node:crypto";
import { decodeSecret } from "./secret";
import { computeSignature, toUnixSeconds } from "./sign-webhook";

/** Why a delivery failed verification. */
export type WebhookVerificationReason =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "no_matching_signature";

/** Thrown by verifyWebhook; `reason` says which check failed. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** What a receiver has: its secret, the request headers and the raw body. */
export interface VerifyWebhookInput {
  secret: string;
  /** Header names are matched case-insensitively (Node lower-cases them, other stacks may not). */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The raw request body as received, before any JSON parsing. */
  body: string;
  /** How far the timestamp may be from now, either way, against replays. @defaultValue 300 */
  toleranceSeconds?: number;
  /** The clock, for tests. @defaultValue new Date() */
  now?: Date | number;
}

function readHeader(headers: VerifyWebhookInput["headers"], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    // A repeated header arrives as an array; the spec's separator for several signatures is a space.
    return typeof value === "string" ? value : value?.join(" ");
  }
  return undefined;
}

/** Checks a delivery's Standard Webhooks signature and timestamp; throws WebhookVerificationError. */
export function verifyWebhook(input: VerifyWebhookInput): { id: string; timestamp: number } {
  // A bad secret is our configuration error, not the sender's: it throws InvalidWebhookSecretError.
  const key = decodeSecret(input.secret);
  const id = readHeader(input.headers, "webhook-id");
  const timestampHeader = readHeader(input.headers, "webhook-timestamp");
  const signatureHeader = readHeader(input.headers, "webhook-signature");
  if (!id || !timestampHeader || !signatureHeader) {
    throw new WebhookVerificationError(
      "missing_headers",
      "webhook-id, webhook-timestamp and webhook-signature are all required",
    );
  }
  // Digits only: parseInt would accept "1700000000abc" and sign something the sender never sent.
  if (!/^\d{1,15}$/.test(timestampHeader)) {
    throw new WebhookVerificationError("invalid_timestamp", `webhook-timestamp is not unix seconds`);
  }
  const timestamp = Number(timestampHeader);
  const now = toUnixSeconds(input.now ?? new Date());
  const tolerance = input.toleranceSeconds ?? 300;
  // Both directions: an old timestamp is a replay, a future one lets a replay live longer.
  if (now - timestamp > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_too_old",
      `webhook-timestamp is more than ${tolerance}s old`,
    );
  }
  if (timestamp - now > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_too_new",
      `webhook-timestamp is more than ${tolerance}s in the future`,
    );
  }
  const expected = Buffer.from(computeSignature(key, id, timestamp, input.body));
  // Any matching entry wins: during a rotation the sender signs with the old and new secrets.
  const isMatch = signatureHeader.split(" ").some((entry) => {
    const candidate = Buffer.from(entry);
    // timingSafeEqual needs equal lengths; the expected length is public (always 47), so
    // checking it first leaks nothing about the key.
    return candidate.length === expected.length && crypto.timingSafeEqual(candidate, expected);
  });
  if (!isMatch) {
    throw new WebhookVerificationError("no_matching_signature", "no webhook-signature entry matches");
  }
  return { id, timestamp };
}
