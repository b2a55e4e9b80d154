import crypto from "node:crypto";
import type { Redis } from "@sms/redis";

// One sorted set per endpoint: members are slot tokens, scores their expiry. Expired
// slots (a worker that died holding them) are dropped before counting, so a crash never
// leaks a slot for longer than one lease. ARGV[5] is the job's token; it gets up to
// ARGV[6] slots, members "<token>#1".."<token>#n", and the reply is n. At the cap, the
// job (ARGV[7], when given) joins the endpoint's waiters (KEYS[2]) as "<wanted>|<job id>",
// first come first woken (scored by the server's clock in µs: several wait within a millisecond).
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
local granted = math.min(free, tonumber(ARGV[6]))
if granted <= 0 then
  if ARGV[7] ~= '' then
    local t = redis.call('TIME')
    redis.call('ZADD', KEYS[2], 'NX', t[1] * 1000000 + t[2], ARGV[6] .. '|' .. ARGV[7])
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
  end
  return 0
end
-- A job that waited and got slots on its own (its delay ran out first) waits no more: else a
-- release would hand it slots it no longer needs, ahead of the jobs still waiting.
if ARGV[7] ~= '' then redis.call('ZREM', KEYS[2], ARGV[6] .. '|' .. ARGV[7]) end
for i = 1, granted do redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5] .. '#' .. i) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return granted`;

// Gives the slots back and hands them to the first waiters: as many as the freed slots
// cover (each asked for "<wanted>"). The reply is their job ids, to be woken.
const RELEASE = `
local freed = redis.call('ZREM', KEYS[1], unpack(ARGV))
local woken = {}
while freed > 0 do
  local first = redis.call('ZPOPMIN', KEYS[2])
  if #first == 0 then break end
  local bar = string.find(first[1], '|', 1, true)
  freed = freed - tonumber(string.sub(first[1], 1, bar - 1))
  woken[#woken + 1] = string.sub(first[1], bar + 1)
end
return woken`;

/** Slots held on one endpoint by one batch job. */
export interface Lease {
  /** How many requests the holder may have open at once (1 to the number asked for). */
  slots: number;
  /** Gives the slots back; answers the ids of the waiting jobs they were handed to (to wake). */
  release(): Promise<string[]>;
}

export interface EndpointLeases {
  /**
   * Up to `wanted` slots on the account's endpoint in one call, or null when it is at its cap;
   * then `waiter` (a job, as webhookJobRef names it) is woken by the release that frees slots for it.
   */
  acquire(accountId: string, wanted: number, waiter?: string): Promise<Lease | null>;
}

type LeaseRedis = Redis & {
  webhookLeaseAcquire(
    key: string,
    waiters: string,
    now: number,
    expiresAt: number,
    cap: number,
    ttl: number,
    token: string,
    wanted: number,
    waiter: string,
  ): Promise<number>;
  webhookLeaseRelease(key: string, waiters: string, ...members: string[]): Promise<string[]>;
};

/**
 * Per-endpoint concurrency caps shared by every webhook-delivery replica (docs/webhooks.md#delivery-and-retries:
 * one slow or dead endpoint never delays the others). A batch job takes its slots in one
 * script call and gives them back in another, which also names the jobs that waited for
 * them; `leaseMs` must exceed the longest a job holds them (its batch bound plus one attempt's).
 */
export function createEndpointLeases(
  redis: Redis,
  options: { prefix: string; cap: number; leaseMs: number },
): EndpointLeases {
  const client = redis as LeaseRedis;
  if (typeof client.webhookLeaseAcquire !== "function") {
    redis.defineCommand("webhookLeaseAcquire", { numberOfKeys: 2, lua: ACQUIRE });
    redis.defineCommand("webhookLeaseRelease", { numberOfKeys: 2, lua: RELEASE });
  }
  return {
    async acquire(accountId, wanted, waiter = "") {
      // One hash tag for both keys: the scripts touch the two, and on a Redis Cluster they must share a slot.
      const key = `${options.prefix}:webhook:{${accountId}}:inflight`;
      const waiters = `${options.prefix}:webhook:{${accountId}}:waiting`;
      const token = crypto.randomUUID();
      const now = Date.now();
      const asked = Math.min(wanted, options.cap);
      const slots = await client.webhookLeaseAcquire(
        key,
        waiters,
        now,
        now + options.leaseMs,
        options.cap,
        options.leaseMs * 2,
        token,
        asked,
        waiter,
      );
      if (slots <= 0) return null;
      const members = Array.from({ length: slots }, (_, i) => `${token}#${i + 1}`);
      return { slots, release: () => client.webhookLeaseRelease(key, waiters, ...members) };
    },
  };
}
