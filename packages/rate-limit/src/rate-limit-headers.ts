import type { RateLimitDecision } from "./rate-limiter";

/** The response headers for a decision (docs/rate-limits.md#headers): X-RateLimit-*, plus Retry-After when refused. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.resetEpochSeconds),
  };
  if (!decision.allowed) headers["Retry-After"] = String(Math.max(1, decision.retryAfterSeconds));
  return headers;
}
