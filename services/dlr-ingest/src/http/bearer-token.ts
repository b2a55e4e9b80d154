import crypto from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { hashSecretToken } from "@sms/auth";
import { ApiError } from "@sms/errors";

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Whether the request's `Authorization: Bearer <token>` is the token whose SHA-256 (hex, as
 * hashSecretToken writes it) is `expectedHash`; false without one or with no expected hash.
 * Hashes are compared, not tokens, and with timingSafeEqual on equal lengths, so the time says
 * nothing about the token, not even its length.
 */
export function hasBearerToken(req: Request, expectedHash: string | null | undefined): boolean {
  const match = BEARER.exec(req.get("authorization") ?? "");
  if (!match || !expectedHash) return false;
  const given = Buffer.from(hashSecretToken(match[1]!));
  const expected = Buffer.from(expectedHash);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** The 401 for a request without the expected token, with its WWW-Authenticate challenge. */
export function bearerTokenRefused(res: Response, realm: string, message: string): ApiError {
  res.setHeader("WWW-Authenticate", `Bearer realm="${realm}"`);
  return new ApiError("UNAUTHORIZED", message);
}

/** Requires `Authorization: Bearer <token>` with this one token. */
export function requireBearerToken(token: string): RequestHandler {
  const expectedHash = hashSecretToken(token);
  return (req, res, next) =>
    hasBearerToken(req, expectedHash)
      ? next()
      : next(
          bearerTokenRefused(
            res,
            "carrier receipts",
            "Send the receipt token as Authorization: Bearer <token>.",
          ),
        );
}
