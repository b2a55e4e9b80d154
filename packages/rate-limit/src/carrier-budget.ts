import type { Redis } from "@sms/redis";

export type SubmitClass = "high" | "normal" | "bulk";

// A carrier's submits per second, counted per second on the Redis clock for every dispatcher
// replica. A high-class submit may take the whole second; normal and bulk ones leave `reserve`
// of it free while high-class submits were seen in the last two seconds, so an OTP finds room
// at a carrier a campaign keeps full. Without high-class traffic the campaign has all of it.
// A refused take counts nothing. One call decides the takes of one carrier made in the same
// event-loop turn, in order, as that many calls one after another would.
// ARGV: submits per second, reserve, then 1 (high) or 0 per take.
// Reply: the second (Unix, Redis clock) the window resets at, then allowed 0|1 per take.
const TAKE = `
local now = tonumber(redis.call('TIME')[1])
local window = KEYS[1] .. ':' .. now
local limit = tonumber(ARGV[1])
local reserve = tonumber(ARGV[2])
local high_seen = redis.call('EXISTS', KEYS[2]) == 1
local used = tonumber(redis.call('GET', window) or '0')
local taken = 0
local any_high = false
local reply = {now + 1}
for i = 3, #ARGV do
  local high = ARGV[i] == '1'
  if high then high_seen = true; any_high = true end
  local cap = limit
  if not high and high_seen then cap = limit - reserve end
  if used + taken < cap then taken = taken + 1; reply[#reply + 1] = 1 else reply[#reply + 1] = 0 end
end
if any_high then redis.call('SET', KEYS[2], '1', 'EX', 2) end
if taken > 0 and redis.call('INCRBY', window, taken) == taken then redis.call('EXPIRE', window, 2) end
return reply`;

const COMMAND = "smsCarrierBudgetTake";

export interface CarrierBudgetDecision {
  allowed: boolean;
  /** Unix epoch second at which the carrier's next second of room starts (Redis clock). */
  resetEpochSeconds: number;
}

/** The shared per-second room of each carrier, kept apart for high-class submits when they come. */
export interface CarrierBudget {
  /** Takes room for one submit of `cls` unless the carrier's second is full for that class. */
  take(carrierId: string, perSecond: number, cls: SubmitClass): Promise<CarrierBudgetDecision>;
}

export interface CarrierBudgetOptions {
  /** The deployment's Redis key prefix. */
  prefix: string;
  /** Percent of a carrier's submits per second that normal and bulk submits leave to high-class ones while those come. */
  highReservePercent: number;
}

/** Room kept for high-class submits: at least one when the carrier allows two or more a second. */
export function highReserve(perSecond: number, percent: number): number {
  if (perSecond < 2 || percent <= 0) return 0;
  return Math.min(perSecond - 1, Math.max(1, Math.ceil((perSecond * percent) / 100)));
}

export function createCarrierBudget(redis: Redis, options: CarrierBudgetOptions): CarrierBudget {
  if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 2, lua: TAKE });
  const run = (redis as unknown as Record<string, (...args: unknown[]) => Promise<number[]>>)[COMMAND]!.bind(
    redis,
  );
  interface Take {
    high: boolean;
    resolve: (decision: CarrierBudgetDecision) => void;
    reject: (error: unknown) => void;
  }
  // The takes of each carrier waiting for the end of this event-loop turn, with its rate then.
  const waiting = new Map<string, { perSecond: number; takes: Take[] }>();

  function send(carrierId: string, perSecond: number, takes: Take[]): void {
    // The hash tag keeps a carrier's two keys on one Redis Cluster slot.
    const base = `${options.prefix}:carrier-budget:{${carrierId}}`;
    const reserve = highReserve(perSecond, options.highReservePercent);
    run(`${base}:rps`, `${base}:high`, perSecond, reserve, ...takes.map((t) => (t.high ? 1 : 0))).then(
      (reply) => {
        const resetEpochSeconds = Number(reply[0]);
        takes.forEach((take, i) => take.resolve({ allowed: Number(reply[i + 1]) === 1, resetEpochSeconds }));
      },
      (error: unknown) => takes.forEach((take) => take.reject(error)),
    );
  }

  return {
    take(carrierId, perSecond, cls) {
      return new Promise((resolve, reject) => {
        const batch = waiting.get(carrierId);
        const take = { high: cls === "high", resolve, reject };
        if (batch) {
          batch.takes.push(take);
          return;
        }
        waiting.set(carrierId, { perSecond, takes: [take] });
        setImmediate(() => {
          const due = waiting.get(carrierId)!;
          waiting.delete(carrierId);
          send(carrierId, due.perSecond, due.takes);
        });
      });
    },
  };
}
