import type { z } from "zod";
import { ApiError, type FieldError } from "@sms/errors";

function pathOf(issue: z.core.$ZodIssue): string {
  return issue.path.reduce<string>(
    (text, part) =>
      typeof part === "number" ? `${text}[${part}]` : text ? `${text}.${String(part)}` : String(part),
    "",
  );
}

function describe(issue: z.core.$ZodIssue): string {
  const field = pathOf(issue) || "body";
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined
        ? `${field} is required.`
        : `${field} must be ${issue.expected === "object" ? "an object" : `a ${issue.expected}`}.`;
    case "unrecognized_keys":
      return `${field === "body" ? "The body" : field} has unknown field(s): ${issue.keys.map((key) => JSON.stringify(key)).join(", ")}.`;
    case "too_big":
      return `${field} is too ${issue.origin === "array" ? "long" : "large"}: at most ${String(issue.maximum)}${issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : ""}.`;
    case "too_small":
      return `${field} is too ${issue.origin === "array" || issue.origin === "string" ? "short" : "small"}: at least ${String(issue.minimum)}${issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : ""}.`;
    default:
      return `${field}: ${issue.message}.`;
  }
}

/** Parses `input` with `schema` or throws VALIDATION_ERROR naming each bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  // reportInput: zod 4 leaves issue.input out otherwise, and a wrong type read as "missing".
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const details: FieldError[] = result.error.issues.slice(0, 50).map((issue) => ({
    field: pathOf(issue) || "body",
    code: "VALIDATION_ERROR",
    message: describe(issue),
  }));
  const first = details[0]!;
  throw new ApiError("VALIDATION_ERROR", first.message, {
    field: first.field,
    details: details.length > 1 ? details : undefined,
  });
}
