/** Alphanumeric originator: GSM 03.38 TP-OA allows 11 characters in the alphanumeric form (3GPP TS 23.040 §9.1.2.5). */
const ALPHANUMERIC = /^[A-Za-z0-9 ]{1,11}$/;
/** Numeric originator: an E.164 number has at most 15 digits (ITU-T E.164 §6); short codes are shorter. */
const NUMERIC = /^\+?[0-9]{1,15}$/;

/**
 * Why `value` cannot be a sender id, or undefined when it can: either 1–11 characters of
 * [A-Za-z0-9 ] with at least one letter, or up to 15 digits with an optional leading +.
 */
export function findSenderIdProblem(value: string): string | undefined {
  if (value.length === 0) return "must not be empty";
  if (NUMERIC.test(value)) return undefined;
  if (/^\+?[0-9]+$/.test(value)) return "a numeric sender id has at most 15 digits";
  if (!ALPHANUMERIC.test(value)) {
    return value.length > 11
      ? "an alphanumeric sender id has at most 11 characters"
      : "only letters A-Z, digits and spaces are allowed (or a number of up to 15 digits with an optional +)";
  }
  if (value !== value.trim()) return "must not start or end with a space";
  // Passing the alphanumeric pattern but not the numeric one means a letter or space is present.
  if (!/[A-Za-z]/.test(value)) return "an alphanumeric sender id needs at least one letter";
  return undefined;
}
