import crypto from "node:crypto";

/** A code of `length` decimal digits from the CSPRNG; leading zeros are kept (docs/otp.md#codes). */
export function generateCode(length: number): string {
  // randomInt draws uniformly (rejection sampling), so no digit string is likelier than another.
  return String(crypto.randomInt(0, 10 ** length)).padStart(length, "0");
}

/**
 * HMAC-SHA256 of the code under the deployment's secret, bound to the OTP id and the
 * phone: a stolen row cannot be brute-forced without the secret, and a row's HMAC
 * copied onto another OTP or phone does not match there.
 */
export function hashCode(secret: string, otpId: string, phone: string, code: string): Buffer {
  // NUL separators: none of the parts can contain one, so the encoding is unambiguous.
  return crypto.createHmac("sha256", secret).update(`${otpId}\0${phone}\0${code}`).digest();
}
