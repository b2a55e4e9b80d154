export {
  createRateLimiter,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimits,
  type RateLimitDecision,
} from "./rate-limiter";
export { rateLimitHeaders } from "./rate-limit-headers";
export { rateLimitMiddleware, type RateLimitMiddlewareOptions } from "./rate-limit.middleware";
export { createPacer, type Pacer, type PacedTurn } from "./pacer";
export {
  createCarrierBudget,
  highReserve,
  type CarrierBudget,
  type CarrierBudgetDecision,
  type CarrierBudgetOptions,
  type SubmitClass,
} from "./carrier-budget";
