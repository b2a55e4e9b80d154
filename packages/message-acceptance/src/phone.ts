import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { ApiError } from "@sms/errors";

const E164_SHAPE = /^\+[1-9]\d{1,14}$/;

/** Numbers whose verdict is remembered; a few MiB at most. */
const CACHE_SIZE = 10_000;
/** A valid number: its E.164 form and the ISO 3166-1 alpha-2 country it belongs to. */
export interface Destination {
  number: string;
  /** Undefined for non-geographic numbers (+800, +882 …), which no country list allows. */
  country: string | undefined;
}

/** The destination of a compact number, or null when no numbering plan has it (libphonenumber's verdict). */
const verdicts = new Map<string, Destination | null>();

/**
 * The E.164 form of a recipient, or INVALID_PHONE. The input must already be
 * international with a leading + (the interface says so); libphonenumber's full
 * metadata then checks that the number can exist in its country's plan.
 *
 * Its verdict is cached per number (the same recipients come back: OTPs, alerts to a
 * team), bounded to CACHE_SIZE numbers, oldest first out. It depends only on the number
 * and the metadata bundled with this build, so a cached verdict is never stale.
 */
export function normalizePhone(value: string, field = "to"): string {
  return parseDestination(value, field).number;
}

/** {@link normalizePhone}, with the number's country. */
export function parseDestination(value: string, field = "to"): Destination {
  const compact = value.replace(/[\s\-().]/g, "");
  if (!E164_SHAPE.test(compact)) {
    throw new ApiError(
      "INVALID_PHONE",
      `${field} must be an international number with a leading +, such as +14155550100.`,
      { field },
    );
  }
  let verdict = verdicts.get(compact);
  if (verdict === undefined) {
    const parsed = parsePhoneNumberFromString(compact);
    verdict = parsed && parsed.isValid() ? { number: parsed.number, country: parsed.country } : null;
    if (verdicts.size >= CACHE_SIZE) verdicts.delete(verdicts.keys().next().value!);
    verdicts.set(compact, verdict);
  }
  if (verdict === null) {
    throw new ApiError(
      "INVALID_PHONE",
      `${field} is not a valid phone number in any numbering plan; check the country code and length.`,
      { field },
    );
  }
  return verdict;
}
