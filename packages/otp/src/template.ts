import { ApiError } from "@sms/errors";

/** The text when the request gives no template (docs/otp.md#send). */
export const DEFAULT_TEMPLATE = "Your verification code is {code}";

const PLACEHOLDER = "{code}";

/** Throws VALIDATION_ERROR unless the template holds `{code}` exactly once. */
export function checkTemplate(template: string): void {
  const count = template.split(PLACEHOLDER).length - 1;
  if (count !== 1) {
    throw new ApiError(
      "VALIDATION_ERROR",
      count === 0
        ? "template must contain the placeholder {code} where the code goes."
        : `template must contain {code} exactly once; it has ${count}.`,
      { field: "template" },
    );
  }
}

/** The SMS text with the code in place of `{code}`. */
export function renderTemplate(template: string, code: string): string {
  // A function replacement: "$&" or "$1" in a customer's template must stay literal.
  return template.replace(PLACEHOLDER, () => code);
}

/** What is stored and reported as the message text: the template with the code masked. */
export function redactTemplate(template: string, length: number): string {
  return renderTemplate(template, "*".repeat(length));
}
