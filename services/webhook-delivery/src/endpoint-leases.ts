import crypto from "node:crypto";
import type { Redis } from "@sms/redis";

// One sorted set per endpoint: members are slot tokens, scores their expiry. Expired
// slots (a worker that died holding them) are dropped before counting, so a crash never
// leaks a slot for longer than one lease. ARGV[5] is the job's token; it gets up to
// ARGV[6] slots, members "<token>#1".."<token>#n", and the reply is n.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
local granted = math.min(free, tonumber(ARGV[6]))
if granted <= 0 then return 0 end
for i = 1, granted do redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5] .. '#' .. i) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return granted`;

/** Slots held on one endpoint by one batch job. */
export interface Lease {
  /** How many requests the holder may have open at once (1 to the number asked for). */
  slots: number;
  release(): Promise<void>;
}

export interface EndpointLeases {
  /** Up to `wanted` slots on the account's endpoint in one call, or null when it is at its cap. */
  acquire(accountId: string, wanted: number): Promise<Lease | null>;
}

type LeaseRedis = Redis & {
  webhookLeaseAcquire(
    key: string,
    now: number,
    expiresAt: number,
    cap: number,
    ttl: number,
    token: string,
    wanted: number,
  ): Promise<number>;
};

/**
 * Per-endpoint concurrency caps shared by every webhook-delivery replica (docs/webhooks.md#delivery-and-retries:
 * one slow or dead endpoint never delays the others). A batch job takes its slots in one
 * script call and gives them back in one ZREM; `leaseMs` must exceed the longest a job
 * holds them (its batch bound plus one attempt's).
 */
export function createEndpointLeases(
  redis: Redis,
  options: { prefix: string; cap: number; leaseMs: number },
): EndpointLeases {
  const client = redis as LeaseRedis;
  if (typeof client.webhookLeaseAcquire !== "function") {
    redis.defineCommand("webhookLeaseAcquire", { numberOfKeys: 1, lua: ACQUIRE });
  }
  return {
    async acquire(accountId, wanted) {
      const key = `${options.prefix}:webhook:inflight:${accountId}`;
      const token = crypto.randomUUID();
      const now = Date.now();
      const slots = await client.webhookLeaseAcquire(
        key,
        now,
        now + options.leaseMs,
        options.cap,
        options.leaseMs * 2,
        token,
        Math.min(wanted, options.cap),
      );
      if (slots <= 0) return null;
      const members = Array.from({ length: slots }, (_, i) => `${token}#${i + 1}`);
      return { slots, release: async () => void (await redis.zrem(key, ...members)) };
    },
  };
}
