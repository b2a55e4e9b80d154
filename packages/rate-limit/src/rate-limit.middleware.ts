import type { Request, RequestHandler, Response } from "express";
import { ApiError } from "@sms/errors";
import { rateLimitHeaders } from "./rate-limit-headers";
import type { RateLimiter } from "./rate-limiter";

/** Options of {@link rateLimitMiddleware}. */
export interface RateLimitMiddlewareOptions {
  limiter: Pick<RateLimiter, "check">;
  /**
   * The account and its request limit, usually read from `res.locals.account` set by
   * authentication; undefined lets the request through uncounted (no account to count it against).
   */
  limitsFor: (req: Request, res: Response) => { accountId: string; requestsPerSecond: number } | undefined;
}

/**
 * Express middleware counting one request per call: sets the X-RateLimit-* headers, and on
 * refusal passes ApiError RATE_LIMITED (with retryAfterSeconds) to next(). A Redis failure goes
 * to next() untouched: the error handler answers 503, so an outage never lets traffic through unlimited.
 */
export function rateLimitMiddleware({ limiter, limitsFor }: RateLimitMiddlewareOptions): RequestHandler {
  return async (req, res, next) => {
    let decision;
    try {
      const limits = limitsFor(req, res);
      if (!limits) return next();
      decision = await limiter.check(limits.accountId, { requestsPerSecond: limits.requestsPerSecond });
    } catch (error) {
      return next(error);
    }
    // Set before next(): every later response, success or error, carries them.
    res.set(rateLimitHeaders(decision));
    if (decision.allowed) return next();
    const { limit, retryAfterSeconds } = decision;
    next(
      new ApiError(
        "RATE_LIMITED",
        `Too many requests: this account may make ${limit} per second. Retry after ${retryAfterSeconds} s.`,
        { retryAfterSeconds },
      ),
    );
  };
}
