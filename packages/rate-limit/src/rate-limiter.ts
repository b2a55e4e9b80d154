import { readFileSync } from "node:fs";
import path from "node:path";
import type { Redis } from "@sms/redis";

/**
 * The check script, shipped as a file so the two-process test runs the very same Lua
 * in plain Node; a bundled build must copy the .lua files next to its output.
 */
export const CHECK_SCRIPT_PATH = path.join(__dirname, "rate-limit-check.lua");

// Namespaced: defineCommand adds this as a method on the caller's connection.
const CHECK_COMMAND = "smsRateLimitCheck";

type CheckReply = [
  allowed: number,
  reason: string,
  limit: number,
  remaining: number,
  reset: number,
  retryAfter: number,
];
const REPLY_LENGTH = 6;
/** Checks per script call at most: bounds the time one call holds Redis. */
const MAX_CHECKS_PER_CALL = 1000;

interface ScriptCommands {
  /** Six reply values per check, flat (rate-limit-check.lua). */
  [CHECK_COMMAND](windowKey: string, ...args: number[]): Promise<Array<string | number>>;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Key prefix shared by every process enforcing the same limits (the deployment's REDIS_PREFIX). */
  prefix: string;
}

/** One account's limit for a check. */
export interface RateLimits {
  /** Requests allowed in each one-second window. */
  requestsPerSecond: number;
}

/** The outcome of a check: limit, remaining and reset describe the one-second request window. */
export interface RateLimitDecision {
  allowed: boolean;
  reason?: "RATE_LIMITED";
  limit: number;
  remaining: number;
  /** Unix epoch second at which the request window resets. */
  resetEpochSeconds: number;
  /** 0 when allowed; at least 1 when refused. */
  retryAfterSeconds: number;
}

/** A limiter whose every check is one atomic script call on the Redis clock. */
export interface RateLimiter {
  /** Counts one request unless that would exceed the account's requests per second. */
  check(accountId: string, limits: RateLimits): Promise<RateLimitDecision>;
}

interface PendingCheck {
  requestsPerSecond: number;
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
  redis.defineCommand(CHECK_COMMAND, { numberOfKeys: 1, lua: readFileSync(CHECK_SCRIPT_PATH, "utf8") });
  const commands = redis as unknown as ScriptCommands;
  const waiting = new Map<string, PendingCheck[]>();
  let flushScheduled = false;

  function send(windowKey: string, checks: PendingCheck[]): void {
    const args = [checks.length, ...checks.map((c) => c.requestsPerSecond)];
    commands[CHECK_COMMAND](windowKey, ...args).then(
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
    const batches = [...waiting];
    waiting.clear();
    for (const [windowKey, checks] of batches) {
      for (let i = 0; i < checks.length; i += MAX_CHECKS_PER_CALL)
        send(windowKey, checks.slice(i, i + MAX_CHECKS_PER_CALL));
    }
  }

  return {
    async check(accountId, { requestsPerSecond }) {
      assertCount("requestsPerSecond", requestsPerSecond);
      const windowKey = windowKeyOf(options.prefix, accountId);
      return new Promise<RateLimitDecision>((resolve, reject) => {
        let batch = waiting.get(windowKey);
        if (!batch) waiting.set(windowKey, (batch = []));
        batch.push({ requestsPerSecond, resolve, reject });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}

/** KEYS and ARGV of a script call with one check (the two-process test uses it). */
export function checkScriptInput(
  prefix: string,
  accountId: string,
  { requestsPerSecond }: RateLimits,
): { keys: [string]; args: number[] } {
  assertCount("requestsPerSecond", requestsPerSecond);
  return { keys: [windowKeyOf(prefix, accountId)], args: [1, requestsPerSecond] };
}

function windowKeyOf(prefix: string, accountId: string): string {
  return `${keyBase(prefix, accountId)}:rps`;
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

function toDecision([allowed, reason, limit, remaining, reset, retryAfter]: CheckReply): RateLimitDecision {
  return {
    allowed: allowed === 1,
    ...(reason === "RATE_LIMITED" ? { reason } : {}),
    limit,
    remaining,
    resetEpochSeconds: reset,
    retryAfterSeconds: retryAfter,
  };
}
