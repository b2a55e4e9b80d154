export {
  createRateLimiter,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimits,
  type RateLimitCost,
  type RateLimitDecision,
} from "./rate-limiter";
export { rateLimitHeaders } from "./rate-limit-headers";
export { rateLimitMiddleware, type RateLimitMiddlewareOptions } from "./rate-limit.middleware";
export { secondsUntilUtcMidnight, utcDayKey } from "./utc-day";
export { createPacer, type Pacer, type PacedTurn } from "./pacer";
export {
  createCarrierBudget,
  highReserve,
  type CarrierBudget,
  type CarrierBudgetDecision,
  type CarrierBudgetOptions,
  type SubmitClass,
} from "./carrier-budget";
