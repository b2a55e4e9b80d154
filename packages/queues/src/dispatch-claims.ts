import type { Redis } from "@sms/redis";

// One key per message, its value the id of the dispatch job that holds it. A job takes a
// message only when the key is free, already its own, or held by `from` (a job handing its
// messages on). All keys share one hash tag, so one script call may touch them on a Cluster.
const CLAIM = `
local granted = {}
for i = 1, #KEYS do
  local holder = redis.call('GET', KEYS[i])
  if (not holder) or holder == ARGV[1] or holder == ARGV[3] then
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
    granted[i] = 1
  else
    granted[i] = 0
  end
end
return granted`;

const RELEASE = `
local released = 0
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    released = released + 1
  end
end
return released`;

/** Keys per script call: bounds the time one call holds Redis. */
const MAX_KEYS_PER_CALL = 1000;

type ClaimRedis = Redis & {
  smsDispatchClaim(numberOfKeys: number, ...keysAndArgs: Array<string | number>): Promise<number[]>;
  smsDispatchRelease(numberOfKeys: number, ...keysAndArgs: string[]): Promise<number>;
};

/**
 * Which dispatch job holds which queued message. A message can be in several jobs at once
 * (the outbox relay or the reconciler re-enqueues it, a deferral hands it on), and two jobs
 * dispatching it at the same time would submit its segments twice: a job dispatches only
 * the messages it claimed. A claim also tells the reconciler that a message's job is alive
 * (waiting, delayed or running), so it re-enqueues only messages that no job holds: after a
 * Redis flush the claims are gone with the jobs, and everything queued is enqueued again.
 */
export interface DispatchClaims {
  /**
   * Claims `messageIds` for `jobId` for `ttlMs`; answers, in order, whether each is now held
   * by `jobId`. A message held by `from` (the job handing it on) is taken over.
   */
  claim(jobId: string, messageIds: readonly string[], ttlMs: number, from?: string): Promise<boolean[]>;
  /** Drops the claims `jobId` holds on these messages (done, or given up). */
  release(jobId: string, messageIds: readonly string[]): Promise<void>;
  /** Answers, in order, whether some job holds each message. */
  isHeld(messageIds: readonly string[]): Promise<boolean[]>;
}

export function createDispatchClaims(redis: Redis, prefix: string): DispatchClaims {
  const client = redis as ClaimRedis;
  if (typeof client.smsDispatchClaim !== "function") {
    redis.defineCommand("smsDispatchClaim", { lua: CLAIM });
    redis.defineCommand("smsDispatchRelease", { lua: RELEASE });
  }
  const key = (messageId: string) => `${prefix}:{sms.dispatch-claims}:${messageId}`;
  return {
    async claim(jobId, messageIds, ttlMs, from = "") {
      const granted: boolean[] = [];
      for (const part of chunks(messageIds)) {
        const replies = await client.smsDispatchClaim(
          part.length,
          ...part.map(key),
          jobId,
          Math.ceil(ttlMs),
          from,
        );
        for (const reply of replies) granted.push(reply === 1);
      }
      return granted;
    },
    async release(jobId, messageIds) {
      for (const part of chunks(messageIds))
        await client.smsDispatchRelease(part.length, ...part.map(key), jobId);
    },
    async isHeld(messageIds) {
      const held: boolean[] = [];
      for (const part of chunks(messageIds)) {
        const values = part.length > 0 ? await redis.mget(...part.map(key)) : [];
        for (const value of values) held.push(value !== null);
      }
      return held;
    },
  };
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += MAX_KEYS_PER_CALL) out.push(items.slice(i, i + MAX_KEYS_PER_CALL));
  return out;
}
