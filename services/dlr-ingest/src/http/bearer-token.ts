import crypto from "node:crypto";
import type { RequestHandler } from "express";
import { ApiError } from "@sms/errors";

const sha256 = (value: string) => crypto.createHash("sha256").update(value).digest();

/**
 * Requires `Authorization: Bearer <token>`. Both sides are hashed first so that
 * timingSafeEqual compares equal lengths and the comparison time says nothing about
 * the token, not even its length.
 */
export function requireBearerToken(token: string): RequestHandler {
  const expected = sha256(token);
  return (req, res, next) => {
    const match = /^Bearer +(\S+) *$/i.exec(req.get("authorization") ?? "");
    if (match && crypto.timingSafeEqual(sha256(match[1]!), expected)) return next();
    res.setHeader("WWW-Authenticate", 'Bearer realm="carrier receipts"');
    next(new ApiError("UNAUTHORIZED", "Send the receipt token as Authorization: Bearer <token>."));
  };
}
