import type { Request, RequestHandler, Response } from "express";
import { ApiError } from "@sms/errors";
import { rateLimitHeaders } from "./rate-limit-headers";
import type { RateLimiter } from "./rate-limiter";

/** What one request is checked against. */
export interface RequestLimits {
  accountId: string;
  requestsPerSecond: number;
}

/** Options of {@link rateLimitMiddleware}. */
export interface RateLimitMiddlewareOptions {
  limiter: Pick<RateLimiter, "check">;
  /**
   * The account and its limits, usually read from `res.locals` set by authentication;
   * undefined lets the request through uncounted (no account to count it against).
   */
  limitsFor: (req: Request, res: Response) => RequestLimits | undefined;
  /** Told of every refusal, where the 429 is decided (the rate-limit rejection metric). */
  onRejected?: (reason: "RATE_LIMITED") => void;
}

/**
 * Express middleware: one atomic check of the request window per request, the X-RateLimit-*
 * headers on every response, and on refusal ApiError RATE_LIMITED (with retryAfterSeconds) to
 * next(). A Redis failure goes to next() untouched: the error handler answers 503, so an outage
 * never lets traffic through unlimited. (The day's message quota is counted where messages are
 * stored: docs/decisions.md#daily-quota.)
 */
export function rateLimitMiddleware({
  limiter,
  limitsFor,
  onRejected,
}: RateLimitMiddlewareOptions): RequestHandler {
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
    onRejected?.("RATE_LIMITED");
    next(
      new ApiError(
        "RATE_LIMITED",
        `Too many requests: this account may make ${limit} per second. Retry after ${retryAfterSeconds} s.`,
        {
          retryAfterSeconds,
        },
      ),
    );
  };
}
