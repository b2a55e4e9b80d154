import type { RequestHandler } from "express";
import type pg from "pg";
import { ApiError } from "@sms/errors";
import { bearerTokenRefused, hasBearerToken } from "./bearer-token";

/**
 * Requires `Authorization: Bearer <token>` matching the carrier's own inbound token: 404 for a
 * carrier id nobody has, 401 for a missing or wrong token or a carrier given none. Only the
 * token's SHA-256 is stored (carriers.inbound_token_hash: 256 random bits need no slow hash).
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
        if (hasBearerToken(req, rows[0]!.inbound_token_hash)) return next();
        next(
          bearerTokenRefused(
            res,
            "carrier inbound",
            "Send this carrier's inbound token as Authorization: Bearer <token>.",
          ),
        );
      }, next);
  };
}
