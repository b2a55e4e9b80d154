import express, { type RequestHandler } from "express";
import { ApiError } from "@sms/errors";

const UTF8 = /^utf-?8$/i;

/**
 * Body handling of docs/api.md#conventions: a POST with a body must say `Content-Type: application/json`
 * in UTF-8 (else 415) and stay under the size limit (else 413). The parser is strict: a
 * body must be a JSON object or array, never a bare string or number.
 *
 * A bad body's error is held back (res.locals.bodyError) and raised by `raiseBodyError`
 * after the rate limiter, so those answers carry the X-RateLimit headers too and garbage
 * bodies count against the account's request rate like any other request.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  const requireJson: RequestHandler = (req, res, next) => {
    if (req.method !== "POST" && req.method !== "PUT" && req.method !== "PATCH") return next();
    // A bare POST …/cancel (no body, or Content-Length: 0) has nothing to type-check.
    const hasBody =
      req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
    const charset = /;\s*charset="?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1];
    if (hasBody && (!req.is("application/json") || (charset !== undefined && !UTF8.test(charset)))) {
      res.locals.bodyError = new ApiError(
        "UNSUPPORTED_MEDIA_TYPE",
        "Send the body as UTF-8 JSON with the header Content-Type: application/json.",
      );
      req.resume();
    }
    next();
  };
  const parse = express.json({ limit: limitBytes, strict: true, type: "application/json" });
  const parseUnlessRefused: RequestHandler = (req, res, next) => {
    if (res.locals.bodyError) return next();
    parse(req, res, (error?: unknown) => {
      if (error) res.locals.bodyError = error;
      next();
    });
  };
  return [requireJson, parseUnlessRefused];
}

/** Raises the body error held back by jsonBody (after rate limiting). */
export const raiseBodyError: RequestHandler = (_req, res, next) => next(res.locals.bodyError);
