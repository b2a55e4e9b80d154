import type { SecretBox } from "@sms/secret-box";

// The sealed text opens only for the OTP it was written for (associated data), and
// never as some other kind of secret sealed under the same deployment key.
const context = (otpId: string) => `otp-text:${otpId}`;

/** Seals the real text of an OTP message for the dispatcher. */
export function sealOtpText(box: SecretBox, otpId: string, text: string): string {
  return box.seal(text, context(otpId));
}

/** Opens what sealOtpText sealed; throws SecretBoxError for another key or OTP. */
export function openOtpText(box: SecretBox, otpId: string, sealed: string): string {
  return box.open(sealed, context(otpId));
}
