import { readFileSync } from "node:fs";
import path from "node:path";
import type { Redis } from "@sms/redis";

// Shipped as a file beside the code (scripts/build.mjs copies packages' .lua files next to each bundle).
const SCRIPT = readFileSync(path.join(__dirname, "pumping-guard.lua"), "utf8");
const COMMAND = "smsOtpPumpingGuard";

type Reply = [allowed: number, sends: number, verified: number, bucket: number];

export interface PumpingGuardOptions {
  /** The deployment's Redis key prefix. */
  prefix: string;
  /** Sends to one prefix in the last hour before the verified share is judged; 0 turns the guard off. */
  minSends: number;
  /** Least share of those sends, in percent, that must have been verified. */
  minVerifiedPercent: number;
  /** Leading digits of the E.164 number (country code included) that make a destination prefix. */
  prefixDigits: number;
}

export type PumpingDecision =
  | { allowed: true; /** Hand back to release() if the send is not accepted after all. */ token: string }
  | { allowed: false; destinationPrefix: string; sends: number; verified: number };

/**
 * SMS pumping: fraudsters make a site send OTPs to number ranges whose terminating carrier
 * pays them per message, and never enter a code. The signal is a destination range where
 * many OTPs go out and few are verified; the guard refuses further OTPs from that account to
 * that range while its last hour looks like that, and lets the rest of the world through.
 */
export interface PumpingGuard {
  take(accountId: string, phone: string): Promise<PumpingDecision>;
  release(accountId: string, phone: string, token: string): Promise<void>;
  /** Counts a verified OTP towards its range's share. */
  verified(accountId: string, phone: string): Promise<void>;
}

export function createPumpingGuard(redis: Redis, options: PumpingGuardOptions): PumpingGuard {
  if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: SCRIPT });
  const run = (redis as unknown as Record<string, (...args: unknown[]) => Promise<Reply>>)[COMMAND]!.bind(
    redis,
  );
  const rangeOf = (phone: string) => phone.slice(0, options.prefixDigits + 1);
  // The hash tag keeps an account's keys on one Redis Cluster slot.
  const keyOf = (accountId: string, phone: string) =>
    `${options.prefix}:otp-pumping:{${accountId}}:${rangeOf(phone)}`;
  const call = (accountId: string, phone: string, action: string, bucket = 0) =>
    run(keyOf(accountId, phone), action, options.minSends, options.minVerifiedPercent, bucket);
  return {
    async take(accountId, phone) {
      const [allowed, sends, verified, bucket] = await call(accountId, phone, "send");
      return allowed === 1
        ? { allowed: true, token: String(bucket) }
        : { allowed: false, destinationPrefix: rangeOf(phone), sends, verified };
    },
    async release(accountId, phone, token) {
      await call(accountId, phone, "release", Number(token));
    },
    async verified(accountId, phone) {
      await call(accountId, phone, "verified");
    },
  };
}
