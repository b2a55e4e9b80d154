import crypto from "node:crypto";
import type { RequestHandler } from "express";
import type pg from "pg";
import { hashSecretToken } from "@sms/auth";
import { ApiError } from "@sms/errors";

/**
 * Requires `Authorization: Bearer <token>` matching the carrier's own inbound token: 404 for a
 * carrier id nobody has, 401 for a missing or wrong token or a carrier given none. The SHA-256
 * hashes (carriers.inbound_token_hash: 256 random bits need no slow hash) are
 * compared with timingSafeEqual (equal lengths always), so the time says nothing about the token.
 */
export function requireCarrierInboundToken(pool: pg.Pool): RequestHandler {
  return (req, res, next) => {
    const carrierId = String(req.params.carrierId);
    pool
      .query<{ inbound_token_hash: string | null }>({
        name: "dlr-carrier-inbound-token",
        text: "SELECT inbound_token_hash FROM carriers WHERE id = $1",
        values: [carrierId],
      })
      .then(({ rows }) => {
        if (rows.length === 0) return next(new ApiError("NOT_FOUND", "No carrier has this id."));
        const match = /^Bearer +(\S+) *$/i.exec(req.get("authorization") ?? "");
        const expected = rows[0]!.inbound_token_hash;
        const given = match ? hashSecretToken(match[1]!) : "";
        if (expected && given && crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected)))
          return next();
        res.setHeader("WWW-Authenticate", 'Bearer realm="carrier inbound"');
        next(
          new ApiError("UNAUTHORIZED", "Send this carrier's inbound token as Authorization: Bearer <token>."),
        );
      }, next);
  };
}
