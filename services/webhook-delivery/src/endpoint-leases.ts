import crypto from "node:crypto";
import type { Redis } from "@sms/redis";

// One sorted set per endpoint: members are lease tokens, scores their expiry. Expired
// leases (a worker that died mid-attempt) are dropped before counting, so a crash
// never leaks a slot for longer than one attempt's bound.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export interface EndpointLeases {
  /** A slot for one attempt to the account's endpoint, or null when the endpoint is at its cap. */
  acquire(accountId: string): Promise<{ release(): Promise<void> } | null>;
}

type LeaseRedis = Redis & {
  webhookLeaseAcquire(
    key: string,
    now: number,
    expiresAt: number,
    token: string,
    cap: number,
    ttl: number,
  ): Promise<number>;
};

/**
 * Per-endpoint concurrency caps shared by every webhook-delivery replica (DESIGN §5:
 * one slow endpoint never delays the others). `leaseMs` must exceed one attempt's bound.
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
    async acquire(accountId) {
      const key = `${options.prefix}:webhook:inflight:${accountId}`;
      const token = crypto.randomUUID();
      const now = Date.now();
      const granted = await client.webhookLeaseAcquire(
        key,
        now,
        now + options.leaseMs,
        token,
        options.cap,
        options.leaseMs * 2,
      );
      if (granted !== 1) return null;
      return {
        release: async () => {
          await redis.zrem(key, token);
        },
      };
    },
  };
}
