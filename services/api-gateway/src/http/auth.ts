import type { RequestHandler, Response } from "express";
import { ApiError } from "@sms/errors";
import type { ApiKeyDirectory, AuthContext, Permission } from "@sms/auth";

const BEARER = /^Bearer ([^\s]+)$/;

/** Bearer-key authentication; puts the AuthContext on res.locals.auth. */
export function authenticate(directory: ApiKeyDirectory): RequestHandler {
  return async (req, res, next) => {
    const header = req.get("authorization");
    const match = header ? BEARER.exec(header) : null;
    if (!match) {
      return next(
        new ApiError("UNAUTHORIZED", "Send your API key in the header Authorization: Bearer <API_KEY>."),
      );
    }
    const context = await directory.authenticate(match[1]!);
    if (!context) return next(new ApiError("UNAUTHORIZED", "The API key is unknown or revoked."));
    if (context.account.status !== "active")
      return next(new ApiError("FORBIDDEN", "The account is suspended."));
    res.locals.auth = context;
    next();
  };
}

/** The authenticated context of a request (after `authenticate`). */
export function authOf(res: Response): AuthContext {
  return res.locals.auth as AuthContext;
}

/** Refuses the request with FORBIDDEN unless the key has `permission`. */
export function requirePermission(permission: Permission): RequestHandler {
  return (_req, res, next) => {
    if (!authOf(res).permissions.has(permission)) {
      return next(new ApiError("FORBIDDEN", `This API key lacks the permission ${permission}.`));
    }
    next();
  };
}
