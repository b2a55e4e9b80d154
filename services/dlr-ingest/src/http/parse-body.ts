import { ApiError } from "@sms/errors";
import type { z } from "@sms/config";

/** The body as `schema` reads it, or VALIDATION_ERROR naming every bad field (docs/api.md#errors). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    field: issue.path.join(".") || "(body)",
    code: "VALIDATION_ERROR" as const,
    message: `${issue.path.join(".") || "body"}: ${issue.message}`,
  }));
  throw new ApiError("VALIDATION_ERROR", details.map((d) => d.message).join("; "), {
    field: details[0]?.field,
    details,
  });
}
