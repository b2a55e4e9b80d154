import type { Redis } from "@sms/redis";

// A reservation book per key: the latest second (Unix, Redis clock) with messages booked and
// how many. A reservation fills what is left of the current second, then whole seconds after
// it, so at most `rate` messages ever fall in one second, whoever reserved them (every
// dispatcher replica shares the book). Each turn is told when its second starts: a caller
// whose turn is later waits outside the workers (a delayed job) and wakes once, no polling.
// Replies flat: count, wait in ms, start on the Redis clock in ms, count, wait, start, …
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local left = tonumber(ARGV[2])
local second = tonumber(redis.call('HGET', KEYS[1], 's') or '0')
local used = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
local current = math.floor(now / 1000)
if second < current then second = current; used = 0 end
local turns = {}
while left > 0 do
  if used >= rate then second = second + 1; used = 0 end
  local take = math.min(rate - used, left)
  turns[#turns + 1] = take
  turns[#turns + 1] = math.max(0, second * 1000 - now)
  turns[#turns + 1] = math.max(now, second * 1000)
  used = used + take
  left = left - take
end
redis.call('HSET', KEYS[1], 's', second, 'u', used)
redis.call('PEXPIRE', KEYS[1], (second + 1) * 1000 - now + 1000)
return turns`;

type PacerRedis = Redis & {
  smsPacerReserve(key: string, rate: number, count: number): Promise<number[]>;
};

/** One turn of a reservation. */
export interface PacedTurn {
  count: number;
  /** 0 for a turn in the current second. */
  waitMs: number;
  /** When the turn starts, ms on the Redis clock (the books' one clock). */
  atMs: number;
}

/** Spreads work of one key (an account's messages) at a rate per second shared by every process. */
export interface Pacer {
  /**
   * Reserves `count` messages at `perSecond`: what is left of the current second, then whole
   * seconds. Answers each turn's size, how long it must wait (0: now) and when it starts.
   */
  reserve(key: string, count: number, perSecond: number): Promise<PacedTurn[]>;
}

/** @param prefix the deployment's REDIS_PREFIX. */
export function createPacer(redis: Redis, prefix: string): Pacer {
  const client = redis as PacerRedis;
  if (typeof client.smsPacerReserve !== "function")
    redis.defineCommand("smsPacerReserve", { numberOfKeys: 1, lua: RESERVE });
  return {
    async reserve(key, count, perSecond) {
      if (count <= 0) return [];
      const reply = await client.smsPacerReserve(
        `${prefix}:pace:${key}`,
        Math.max(1, Math.floor(perSecond)),
        count,
      );
      const turns: PacedTurn[] = [];
      for (let i = 0; i < reply.length; i += 3)
        turns.push({ count: Number(reply[i]), waitMs: Number(reply[i + 1]), atMs: Number(reply[i + 2]) });
      return turns;
    },
  };
}
