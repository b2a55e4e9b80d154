import express, { type RequestHandler } from "express";
import { ApiError } from "@sms/errors";

/**
 * Body handling of DESIGN §3: a POST with a body must say `Content-Type: application/json`
 * (else 415) and stay under the size limit (else 413). The parser is strict: a
 * body must be a JSON object or array, never a bare string or number.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    if (req.method !== "POST" && req.method !== "PUT" && req.method !== "PATCH") return next();
    // A bare POST …/cancel (no body, or Content-Length: 0) has nothing to type-check.
    const hasBody =
      req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
    if (hasBody && !req.is("application/json")) {
      return next(
        new ApiError(
          "UNSUPPORTED_MEDIA_TYPE",
          "Send the body as JSON with the header Content-Type: application/json.",
        ),
      );
    }
    next();
  };
  return [requireJson, express.json({ limit: limitBytes, strict: true, type: "application/json" })];
}
