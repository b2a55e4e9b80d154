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

// Takes up to ARGV[2] of what is left of the current second and nothing later: a caller whose
// turn ended unwritten goes on at once when its account has room now, and books nothing ahead
// when it has not (a second already booked to the rate, or later seconds booked: those are
// other messages' turns). Replies the count taken and the current second's end, ms on the Redis clock.
const TAKE_NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local second = tonumber(redis.call('HGET', KEYS[1], 's') or '0')
local used = tonumber(redis.call('HGET', KEYS[1], 'u') or '0')
local current = math.floor(now / 1000)
if second > current then return {0, (current + 1) * 1000} end
if second < current then used = 0 end
local take = math.max(0, math.min(rate - used, tonumber(ARGV[2])))
if take > 0 then
  redis.call('HSET', KEYS[1], 's', current, 'u', used + take)
  redis.call('PEXPIRE', KEYS[1], (current + 1) * 1000 - now + 1000)
end
return {take, (current + 1) * 1000}`;

type PacerRedis = Redis & {
  smsPacerReserve(key: string, rate: number, count: number): Promise<number[]>;
  smsPacerTakeNow(key: string, rate: number, count: number): Promise<number[]>;
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
  /**
   * Takes up to `count` of what is left of the current second, never a later one: how many it
   * took, and when the current second ends (ms on the Redis clock).
   */
  takeNow(key: string, count: number, perSecond: number): Promise<{ taken: number; secondEndMs: number }>;
}

/** @param prefix the deployment's REDIS_PREFIX. */
export function createPacer(redis: Redis, prefix: string): Pacer {
  const client = redis as PacerRedis;
  if (typeof client.smsPacerReserve !== "function")
    redis.defineCommand("smsPacerReserve", { numberOfKeys: 1, lua: RESERVE });
  if (typeof client.smsPacerTakeNow !== "function")
    redis.defineCommand("smsPacerTakeNow", { numberOfKeys: 1, lua: TAKE_NOW });
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
    async takeNow(key, count, perSecond) {
      if (count <= 0) return { taken: 0, secondEndMs: 0 };
      const [taken, secondEndMs] = await client.smsPacerTakeNow(
        `${prefix}:pace:${key}`,
        Math.max(1, Math.floor(perSecond)),
        count,
      );
      return { taken: Number(taken), secondEndMs: Number(secondEndMs) };
    },
  };
}
