import type { Request, RequestHandler, Response } from "express";
import { ApiError } from "@sms/errors";
import { rateLimitHeaders } from "./rate-limit-headers";
import type { RateLimiter } from "./rate-limiter";

/** What one request is checked against, and what it would consume. */
export interface RequestLimits {
  accountId: string;
  requestsPerSecond: number;
  /** Messages per UTC day; omit for no quota check. */
  dailyQuota?: number;
  /** Messages the request would accept, counted against the quota in the same call. @defaultValue 0 */
  messages?: number;
}

/** Options of {@link rateLimitMiddleware}. */
export interface RateLimitMiddlewareOptions {
  limiter: Pick<RateLimiter, "check" | "refund">;
  /**
   * The account and its limits, usually read from `res.locals` set by authentication;
   * undefined lets the request through uncounted (no account to count it against).
   */
  limitsFor: (req: Request, res: Response) => RequestLimits | undefined;
  /**
   * Messages the request really accepted, read when the response is sent; the
   * difference to `messages` is refunded to the day's quota (invalid items, no credits).
   * @defaultValue every counted message is kept
   */
  messagesUsed?: (res: Response) => number;
  /** Told of every refusal, where the 429 is decided (the rate-limit rejection metric). */
  onRejected?: (reason: "RATE_LIMITED" | "QUOTA_EXCEEDED") => void;
}

/**
 * Express middleware: one atomic check per request (the request window and, for
 * sends, the day's message quota), the X-RateLimit-* headers on every response,
 * and on refusal ApiError RATE_LIMITED or QUOTA_EXCEEDED (with retryAfterSeconds)
 * to next(). A Redis failure goes to next() untouched: the error handler answers
 * 503, so an outage never lets traffic through unlimited.
 */
export function rateLimitMiddleware({
  limiter,
  limitsFor,
  messagesUsed,
  onRejected,
}: RateLimitMiddlewareOptions): RequestHandler {
  return async (req, res, next) => {
    let decision;
    let limits: RequestLimits | undefined;
    try {
      limits = limitsFor(req, res);
      if (!limits) return next();
      const messages = limits.dailyQuota === undefined ? 0 : (limits.messages ?? 0);
      decision = await limiter.check(
        limits.accountId,
        { requestsPerSecond: limits.requestsPerSecond, dailyQuota: limits.dailyQuota },
        { messages },
      );
      if (decision.allowed && messages > 0 && messagesUsed) {
        const { accountId } = limits;
        const { quotaDay } = decision;
        res.once("finish", () => refundUnused(limiter, accountId, messages - messagesUsed(res), quotaDay));
        res.once("close", () => {
          if (!res.writableFinished) refundUnused(limiter, accountId, messages, quotaDay);
        });
      }
    } catch (error) {
      return next(error);
    }
    // Set before next(): every later response, success or error, carries them.
    res.set(rateLimitHeaders(decision));
    if (decision.allowed) return next();
    const { limit, retryAfterSeconds } = decision;
    onRejected?.(decision.reason === "QUOTA_EXCEEDED" ? "QUOTA_EXCEEDED" : "RATE_LIMITED");
    if (decision.reason === "QUOTA_EXCEEDED") {
      return next(
        new ApiError(
          "QUOTA_EXCEEDED",
          `This would exceed the account's daily quota of ${limits.dailyQuota} messages; it resets at 00:00 UTC.`,
          {
            retryAfterSeconds,
          },
        ),
      );
    }
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

function refundUnused(
  limiter: Pick<RateLimiter, "refund">,
  accountId: string,
  unused: number,
  quotaDay?: string,
): void {
  // Best effort: a lost refund only makes the quota stricter, never looser.
  if (unused > 0) limiter.refund(accountId, unused, quotaDay).catch(() => undefined);
}
