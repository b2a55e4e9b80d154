import { readFileSync } from "node:fs";
import path from "node:path";
import type { Redis } from "@sms/redis";
import { utcDayKey } from "./utc-day";

/**
 * The check script, shipped as a file so the two-process test runs the very same Lua
 * in plain Node; a bundled build must copy the .lua files next to its output.
 */
export const CHECK_SCRIPT_PATH = path.join(__dirname, "rate-limit-check.lua");
const REFUND_SCRIPT_PATH = path.join(__dirname, "quota-refund.lua");

// Namespaced: defineCommand adds these as methods on the caller's connection.
const CHECK_COMMAND = "smsRateLimitCheck";
const REFUND_COMMAND = "smsQuotaRefund";

type CheckReply = [
  allowed: number,
  reason: string,
  limit: number,
  remaining: number,
  reset: number,
  retryAfter: number,
  quotaDay: string,
];
const REPLY_LENGTH = 7;
/** Checks per script call at most: bounds the time one call holds Redis. */
const MAX_CHECKS_PER_CALL = 1000;

interface ScriptCommands {
  /** Seven reply values per check, flat (rate-limit-check.lua). */
  [CHECK_COMMAND](windowKey: string, dayKey: string, ...args: number[]): Promise<Array<string | number>>;
  [REFUND_COMMAND](dayKey: string, messages: number): Promise<number>;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Key prefix shared by every process enforcing the same limits (the deployment's REDIS_PREFIX). */
  prefix: string;
}

/** One account's limits for a check. */
export interface RateLimits {
  /** Requests allowed in each one-second window. */
  requestsPerSecond: number;
  /**
   * Messages allowed per UTC day.
   * @defaultValue no quota: messages are neither checked nor counted
   */
  dailyQuota?: number;
}

/** What one check consumes. */
export interface RateLimitCost {
  /**
   * Messages counted against the daily quota, all or nothing.
   * @defaultValue 0
   */
  messages?: number;
  /**
   * Requests counted against requestsPerSecond. 0 makes a quota-only check, for the route
   * that learns its message count after the middleware has already counted the request.
   * @defaultValue 1
   */
  requests?: number;
}

/** The outcome of a check; limit, remaining and reset describe the one-second request window. */
export interface RateLimitDecision {
  allowed: boolean;
  reason?: "RATE_LIMITED" | "QUOTA_EXCEEDED";
  limit: number;
  remaining: number;
  /** Unix epoch second at which the request window resets. */
  resetEpochSeconds: number;
  /** 0 when allowed; at least 1 when refused (the seconds to the next UTC midnight for QUOTA_EXCEEDED). */
  retryAfterSeconds: number;
  /** The UTC day ("yyyymmdd") the messages were counted against: hand it to refund(). */
  quotaDay?: string;
}

/** A limiter whose every check is one atomic script call on the Redis clock. */
export interface RateLimiter {
  /** Counts one request (and `cost.messages` against the daily quota) unless that would exceed a limit. */
  check(accountId: string, limits: RateLimits, cost?: RateLimitCost): Promise<RateLimitDecision>;
  /**
   * Gives back messages counted by an allowed check that acceptance later rejected; resolves to
   * the messages still counted that day. Pass the decision's quotaDay so a refund after
   * midnight reaches the right day; without it, today on the Redis clock.
   */
  refund(accountId: string, messages: number, quotaDay?: string): Promise<number>;
}

interface PendingCheck {
  args: number[];
  resolve: (decision: RateLimitDecision) => void;
  reject: (error: unknown) => void;
}

/**
 * Builds a limiter on `redis`. Give it a "command" connection from createRedis: with no offline
 * queue, a check fails at once while Redis is down instead of waiting for it.
 *
 * Checks are batched: those of one account made in the same event-loop turn (the concurrent
 * requests of a busy account) go to Redis as ONE script call, decided in arrival order exactly
 * as separate calls would be, so the atomicity and the decisions are unchanged while the
 * round trips, syscalls and reply parsing per request fall with the load. A check waits at most
 * until the end of the current turn (setImmediate) before it is sent.
 */
export function createRateLimiter(redis: Redis, options: RateLimiterOptions): RateLimiter {
  redis.defineCommand(CHECK_COMMAND, { numberOfKeys: 2, lua: readFileSync(CHECK_SCRIPT_PATH, "utf8") });
  redis.defineCommand(REFUND_COMMAND, { numberOfKeys: 1, lua: readFileSync(REFUND_SCRIPT_PATH, "utf8") });
  const commands = redis as unknown as ScriptCommands;
  const waiting = new Map<string, { keys: [string, string]; checks: PendingCheck[] }>();
  let flushScheduled = false;

  function send(keys: [string, string], checks: PendingCheck[]): void {
    const args = [checks.length, ...checks.flatMap((c) => c.args)];
    commands[CHECK_COMMAND](...keys, ...args).then(
      (replies) =>
        checks.forEach((check, i) =>
          check.resolve(
            toDecision(replies.slice(i * REPLY_LENGTH, (i + 1) * REPLY_LENGTH) as unknown as CheckReply),
          ),
        ),
      (error: unknown) => checks.forEach((check) => check.reject(error)),
    );
  }

  function flush(): void {
    flushScheduled = false;
    const batches = [...waiting.values()];
    waiting.clear();
    for (const { keys, checks } of batches) {
      for (let i = 0; i < checks.length; i += MAX_CHECKS_PER_CALL)
        send(keys, checks.slice(i, i + MAX_CHECKS_PER_CALL));
    }
  }

  return {
    async check(accountId, limits, cost = {}) {
      const { keys, args } = checkArgs(options.prefix, accountId, limits, cost);
      return new Promise<RateLimitDecision>((resolve, reject) => {
        let batch = waiting.get(keys[0]);
        if (!batch) waiting.set(keys[0], (batch = { keys, checks: [] }));
        batch.checks.push({ args, resolve, reject });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },

    async refund(accountId, messages, quotaDay) {
      assertCount("messages", messages);
      const day = quotaDay ?? utcDayKey(Number((await redis.time())[0]));
      if (!/^\d{8}$/.test(day))
        throw new TypeError(`quotaDay must be "yyyymmdd", got ${JSON.stringify(day)}`);
      return Number(
        await commands[REFUND_COMMAND](`${keyBase(options.prefix, accountId)}:day:${day}`, messages),
      );
    },
  };
}

/** KEYS and ARGV of a script call with one check, in the order it reads them (the two-process test uses it). */
export function checkScriptInput(
  prefix: string,
  accountId: string,
  limits: RateLimits,
  cost: RateLimitCost,
): { keys: [string, string]; args: number[] } {
  const { keys, args } = checkArgs(prefix, accountId, limits, cost);
  return { keys, args: [1, ...args] };
}

/** The keys of an account and the four ARGV values of one check (validated). */
function checkArgs(
  prefix: string,
  accountId: string,
  limits: RateLimits,
  cost: RateLimitCost,
): { keys: [string, string]; args: number[] } {
  const { requestsPerSecond, dailyQuota } = limits;
  const { messages = 0, requests = 1 } = cost;
  assertCount("requestsPerSecond", requestsPerSecond);
  if (dailyQuota !== undefined) assertCount("dailyQuota", dailyQuota);
  assertCount("messages", messages);
  assertCount("requests", requests);
  const base = keyBase(prefix, accountId);
  return {
    keys: [`${base}:rps`, `${base}:day`],
    args: [requestsPerSecond, dailyQuota ?? -1, messages, requests],
  };
}

function keyBase(prefix: string, accountId: string): string {
  // A brace inside the id would move the Cluster hash tag and split the account's keys across slots.
  if (!accountId || /[{}]/.test(accountId))
    throw new TypeError(`invalid account id ${JSON.stringify(accountId)}`);
  return `${prefix}:rl:{${accountId}}`;
}

function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TypeError(`${name} must be a whole number >= 0, got ${value}`);
}

function toDecision([
  allowed,
  reason,
  limit,
  remaining,
  reset,
  retryAfter,
  quotaDay,
]: CheckReply): RateLimitDecision {
  return {
    allowed: allowed === 1,
    ...(reason === "RATE_LIMITED" || reason === "QUOTA_EXCEEDED" ? { reason } : {}),
    limit,
    remaining,
    resetEpochSeconds: reset,
    retryAfterSeconds: retryAfter,
    ...(quotaDay ? { quotaDay } : {}),
  };
}
