import crypto from "node:crypto";
import type { Redis } from "@sms/redis";

// One sorted set per endpoint: members are lease tokens, scores their expiry. Expired
// leases (a worker that died mid-attempt) are dropped before counting, so a crash
// never leaks a slot for longer than one attempt's bound. ARGV[5..] are the tokens
// asking at once; the first `granted` of them get a slot.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
local granted = 0
for i = 5, #ARGV do
  if granted >= free then break end
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
  granted = granted + 1
end
if granted > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return granted`;

/** Tokens per script call: bounds one call's work inside Redis. */
const MAX_TOKENS_PER_CALL = 500;

export interface Lease {
  release(): Promise<void>;
}

export interface EndpointLeases {
  /** A slot for one attempt to the account's endpoint, or null when the endpoint is at its cap. */
  acquire(accountId: string): Promise<Lease | null>;
}

type LeaseRedis = Redis & {
  webhookLeaseAcquireMany(
    key: string,
    now: number,
    expiresAt: number,
    cap: number,
    ttl: number,
    ...tokens: string[]
  ): Promise<number>;
};

interface Pending<T> {
  token: string;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * Per-endpoint concurrency caps shared by every webhook-delivery replica (DESIGN §5:
 * one slow endpoint never delays the others). `leaseMs` must exceed one attempt's bound.
 * The acquires of one event-loop turn go to Redis as one script call per endpoint, and
 * the releases as one ZREM per endpoint (releases first, so their slots are free for the
 * acquires): at thousands of attempts a second, two commands per attempt were a good
 * part of the worker's Redis time. A turn adds no wait of its own (setImmediate).
 */
export function createEndpointLeases(
  redis: Redis,
  options: { prefix: string; cap: number; leaseMs: number },
): EndpointLeases {
  const client = redis as LeaseRedis;
  if (typeof client.webhookLeaseAcquireMany !== "function") {
    redis.defineCommand("webhookLeaseAcquireMany", { numberOfKeys: 1, lua: ACQUIRE });
  }
  let acquiring = new Map<string, Array<Pending<boolean>>>();
  let releasing = new Map<string, Array<Pending<void>>>();
  let flushScheduled = false;

  const enqueue = <T>(batches: Map<string, Array<Pending<T>>>, key: string, token: string) =>
    new Promise<T>((resolve, reject) => {
      const batch = batches.get(key);
      if (batch) batch.push({ token, resolve, reject });
      else batches.set(key, [{ token, resolve, reject }]);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    });

  function flush(): void {
    flushScheduled = false;
    const [releases, acquires] = [releasing, acquiring];
    releasing = new Map();
    acquiring = new Map();
    for (const [key, batch] of releases) settle(batch, redis.zrem(key, ...batch.map((p) => p.token)));
    for (const [key, batch] of acquires) {
      for (let from = 0; from < batch.length; from += MAX_TOKENS_PER_CALL) {
        const part = batch.slice(from, from + MAX_TOKENS_PER_CALL);
        const now = Date.now();
        const granted = client.webhookLeaseAcquireMany(
          key,
          now,
          now + options.leaseMs,
          options.cap,
          options.leaseMs * 2,
          ...part.map((p) => p.token),
        );
        granted.then(
          (count) => part.forEach((p, i) => p.resolve(i < count)),
          (error: unknown) => part.forEach((p) => p.reject(error)),
        );
      }
    }
  }

  return {
    async acquire(accountId) {
      const key = `${options.prefix}:webhook:inflight:${accountId}`;
      const token = crypto.randomUUID();
      if (!(await enqueue(acquiring, key, token))) return null;
      return { release: () => enqueue(releasing, key, token) };
    },
  };
}

function settle(batch: Array<Pending<void>>, done: Promise<unknown>): void {
  done.then(
    () => batch.forEach((p) => p.resolve()),
    (error: unknown) => batch.forEach((p) => p.reject(error)),
  );
}
