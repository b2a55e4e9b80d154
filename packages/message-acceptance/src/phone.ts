import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { ApiError } from "@sms/errors";

const E164_SHAPE = /^\+[1-9]\d{1,14}$/;

/**
 * The E.164 form of a recipient, or INVALID_PHONE. The input must already be
 * international with a leading + (the interface says so); libphonenumber's full
 * metadata then checks that the number can exist in its country's plan.
 */
export function normalizePhone(value: string, field = "to"): string {
  const compact = value.replace(/[\s\-().]/g, "");
  if (!E164_SHAPE.test(compact)) {
    throw new ApiError(
      "INVALID_PHONE",
      `${field} must be an international number with a leading +, such as +14155550100.`,
      { field },
    );
  }
  const parsed = parsePhoneNumberFromString(compact);
  if (!parsed || !parsed.isValid()) {
    throw new ApiError(
      "INVALID_PHONE",
      `${field} is not a valid phone number in any numbering plan; check the country code and length.`,
      { field },
    );
  }
  return parsed.number;
}
