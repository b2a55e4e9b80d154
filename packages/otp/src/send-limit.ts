import crypto from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Redis } from "@sms/redis";

// Shipped as a file beside the code (scripts/build.mjs copies packages' .lua files next to each bundle).
const SCRIPT = readFileSync(path.join(__dirname, "send-limit.lua"), "utf8");
const COMMAND = "smsOtpSendLimit";

type Reply = [allowed: number, count: number, retryAfter: number];

export interface SendLimitOptions {
  /** The deployment's Redis key prefix. */
  prefix: string;
  /** Sends per phone and account in one window. @defaultValue 5 */
  limit: number;
  /** Length of the sliding window. @defaultValue 600 */
  windowSeconds: number;
}

export type SendLimitDecision =
  | { allowed: true; /** Hand back to release() if the send is not accepted after all. */ token: string }
  | { allowed: false; retryAfterSeconds: number };

/** The per-phone OTP send limit, shared by every gateway replica. */
export interface SendLimiter {
  /** Counts one send to `phone` for `accountId` unless the window is full. */
  take(accountId: string, phone: string): Promise<SendLimitDecision>;
  /** Uncounts a send that was not accepted (no credits, a failure). */
  release(accountId: string, phone: string, token: string): Promise<void>;
}

export function createSendLimiter(redis: Redis, options: SendLimitOptions): SendLimiter {
  if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: SCRIPT });
  const run = (redis as unknown as Record<string, (...args: unknown[]) => Promise<Reply>>)[COMMAND]!.bind(
    redis,
  );
  // The hash tag keeps the key on one Redis Cluster slot (docs/operations-runtime.md#redis-cluster).
  const keyOf = (accountId: string, phone: string) => `${options.prefix}:otp-sends:{${accountId}:${phone}}`;
  return {
    async take(accountId, phone) {
      const token = crypto.randomBytes(8).toString("hex");
      const [allowed, , retryAfter] = await run(
        keyOf(accountId, phone),
        options.limit,
        options.windowSeconds * 1000,
        token,
      );
      return allowed === 1 ? { allowed: true, token } : { allowed: false, retryAfterSeconds: retryAfter };
    },
    async release(accountId, phone, token) {
      await redis.zrem(keyOf(accountId, phone), token);
    },
  };
}
