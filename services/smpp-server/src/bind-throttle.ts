import type { Redis } from "@sms/redis";

// KEYS[1] failures of (system_id, address), KEYS[2] failures of the address; ARGV[1] window ms.
// Counts this attempt in both BEFORE the password is checked, in one call: parallel guesses
// from one address each see the ones before them, none slips in between a read and a write.
const TAKE = `
local pair = redis.call('INCR', KEYS[1])
local address = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return {pair, address}`;

// A right password gives its attempt back: the pair starts over, the address keeps its other failures.
const SUCCEED = `
redis.call('DEL', KEYS[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 0`;

interface ThrottleCommands {
  smppBindTake(pairKey: string, addressKey: string, windowMs: number): Promise<[number, number]>;
  smppBindSucceed(pairKey: string, addressKey: string): Promise<number>;
}

/** Settings of {@link BindThrottle}. */
export interface BindThrottlePolicy {
  /** Wait before checking the password after the first failure, doubling with each one after, ms. */
  failureDelayMs: number;
  /** The longest wait, ms. */
  maxDelayMs: number;
  /** Failures from one address (any system_id) it may make before they slow it down too. */
  addressFreeFailures: number;
  /** Failures are forgotten this long after the last attempt, ms. */
  windowMs: number;
}

/** One bind attempt, counted: wait `delayMs` before checking the password, then settle it. */
export interface BindAttempt {
  delayMs: number;
  succeeded(): Promise<void>;
}

/**
 * Throttles password guessing per (system_id, client address) and per client address, in
 * Redis so every replica shares the counts. No lock: a wrong guess only slows down further
 * attempts from the same address, so an attacker who knows a system_id cannot keep its owner,
 * binding from another address, off SMPP. The wait comes before the check, so parallel
 * connections gain nothing.
 */
export class BindThrottle {
  private readonly commands: ThrottleCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly policy: BindThrottlePolicy,
  ) {
    redis.defineCommand("smppBindTake", { numberOfKeys: 2, lua: TAKE });
    redis.defineCommand("smppBindSucceed", { numberOfKeys: 2, lua: SUCCEED });
    this.commands = redis as unknown as ThrottleCommands;
  }

  /** Counts an attempt of `systemId` from `address` (already bucketed, see clientBucket). */
  async attempt(systemId: string, address: string): Promise<BindAttempt> {
    // The address keys' hash tag is the address, the pair key's too: both keys of a call share a slot.
    const pairKey = `${this.prefix}:smpp:bindfail:{${address}}:${systemId}`;
    const addressKey = `${this.prefix}:smpp:bindfail:{${address}}`;
    const [pair, fromAddress] = await this.commands.smppBindTake(pairKey, addressKey, this.policy.windowMs);
    const failuresBefore = Math.max(pair - 1, fromAddress - 1 - this.policy.addressFreeFailures);
    return {
      delayMs: backoff(failuresBefore, this.policy.failureDelayMs, this.policy.maxDelayMs),
      succeeded: async () => void (await this.commands.smppBindSucceed(pairKey, addressKey)),
    };
  }
}

/** 0 without failures, then base, 2×base, 4×base, … up to max. */
export function backoff(failures: number, baseMs: number, maxMs: number): number {
  if (failures <= 0 || baseMs <= 0) return 0;
  return Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 30));
}

/** The bucket a client address counts in (IPv4 as is, IPv6 by its /64): shared with the dashboard's sign-in. */
export { clientBucket } from "@sms/auth";
