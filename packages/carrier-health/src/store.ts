import type { Redis } from "@sms/redis";
import { scanKeys } from "@sms/redis";
import {
  BREAKER_STATES,
  errorRate,
  NEW_RECORD,
  type BreakerRecord,
  type BreakerState,
  type BreakerTransition,
} from "./breaker";

// One hash per carrier, every replica's counts and the breaker's state in it, so each script
// touches one key (one slot on a Redis Cluster). Fields:
//   st v since until trips    the breaker (breaker.ts), v bumped by every transition
//   pt ps pf                  half open: probe permits taken, probes succeeded, failed
//   ws wms bms                window start (set when the breaker closes), window and bucket length
//   w:<bucket start>:ok|f     submits that succeeded / failed in that bucket
//   r:<instance>              one replica's binds: "outstanding,window,bound,binds,at"
// Times are the Redis clock's (TIME): one clock for every replica.

/** Adds one replica's counts, forgets what left the window, answers the clock, the window's totals and the record. */
const SYNC = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key = KEYS[1]
local windowMs = tonumber(ARGV[1])
local bucketMs = tonumber(ARGV[2])
if windowMs > 0 then redis.call('HSET', key, 'wms', windowMs, 'bms', bucketMs)
else
  windowMs = tonumber(redis.call('HGET', key, 'wms') or '0')
  bucketMs = tonumber(redis.call('HGET', key, 'bms') or '1000')
end
local bucket = now - (now % bucketMs)
if tonumber(ARGV[3]) > 0 then redis.call('HINCRBY', key, 'w:' .. bucket .. ':ok', ARGV[3]) end
if tonumber(ARGV[4]) > 0 then redis.call('HINCRBY', key, 'w:' .. bucket .. ':f', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', key, ARGV[5], ARGV[6] .. ',' .. now) end
local ws = tonumber(redis.call('HGET', key, 'ws') or '0')
local oldest = now - windowMs
local staleBefore = now - tonumber(ARGV[8])
local all = redis.call('HGETALL', key)
local ok, failed = 0, 0
local fields = {}
for i = 1, #all, 2 do
  local f, value = all[i], all[i + 1]
  local b, kind = string.match(f, '^w:(%d+):(%a+)$')
  if b then
    b = tonumber(b)
    if b + bucketMs <= oldest or b < ws then redis.call('HDEL', key, f)
    elseif kind == 'ok' then ok = ok + tonumber(value)
    else failed = failed + tonumber(value) end
  elseif string.sub(f, 1, 2) == 'r:' and tonumber(string.match(value, '(%d+)$')) < staleBefore then
    redis.call('HDEL', key, f)
  else
    fields[#fields + 1] = f
    fields[#fields + 1] = value
  end
end
if #all > 0 then redis.call('PEXPIRE', key, ARGV[7]) end
return {now, ok, failed, fields}`;

/** Applies a transition computed on version ARGV[1]; refused (0) when another replica moved first. */
const TRANSITION = `
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'st', ARGV[2], 'since', ARGV[3], 'until', ARGV[4], 'trips', ARGV[5], 'pt', 0, 'ps', 0, 'pf', 0, 'v', v + 1)
if ARGV[6] ~= '0' then redis.call('HSET', KEYS[1], 'ws', ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return v + 1`;

/** Takes one of ARGV[2] probe permits of the half-open state of version ARGV[1]. */
const TAKE_PROBE = `
if redis.call('HGET', KEYS[1], 'st') ~= 'half_open' or redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'pt') or '0') >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], 'pt', 1)
return 1`;

/** Records a probe's verdict, if the half-open state it was taken in is still the current one. */
const PROBE_VERDICT = `
if redis.call('HGET', KEYS[1], 'st') ~= 'half_open' or redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
return 1`;

/** Gives back a permit whose probe sent nothing (its turn ended, its message left queued), if the state is the same. */
const RETURN_PROBE = `
if redis.call('HGET', KEYS[1], 'st') ~= 'half_open' or redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'pt') or '0') <= 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'pt', -1)
return 1`;

type HealthRedis = Redis & {
  smsCarrierHealthSync(
    key: string,
    ...args: Array<string | number>
  ): Promise<[number, number, number, string[]]>;
  smsCarrierHealthTransition(key: string, ...args: Array<string | number>): Promise<number>;
  smsCarrierHealthTakeProbe(key: string, version: number, probes: number): Promise<number>;
  smsCarrierHealthProbeVerdict(key: string, version: number, field: string): Promise<number>;
  smsCarrierHealthReturnProbe(key: string, version: number): Promise<number>;
};

/** One dispatcher replica's binds toward a carrier. */
export interface ReplicaBinds {
  instance: string;
  /** submit_sm sent and not yet answered. */
  outstanding: number;
  /** submit_sm the bound sessions may have outstanding at once. */
  window: number;
  bound: number;
  binds: number;
}

/** A carrier's health as every replica together sees it. */
export interface CarrierHealthReport {
  carrierId: string;
  /** False when no dispatcher has reported on this carrier lately (no record). */
  reported: boolean;
  record: BreakerRecord;
  /** Failed share of the window's submits, 0 to 1. */
  errorRate: number;
  /** The replicas that reported within the stale bound, and their sum. */
  replicas: ReplicaBinds[];
  outstanding: number;
  window: number;
  bound: number;
  binds: number;
  /** Redis clock when read, ms. */
  now: number;
}

export interface HealthStoreOptions {
  /** The deployment's REDIS_PREFIX. */
  prefix: string;
  windowMs: number;
  /** A replica silent this long is left out of window use. @defaultValue 30 s */
  replicaStaleMs?: number;
}

const BUCKETS_PER_WINDOW = 10;

/** The Redis record of carriers' health: counts, breaker state and binds of every dispatcher replica. */
export class CarrierHealthStore {
  private readonly redis: HealthRedis;
  private readonly ttlMs: number;

  constructor(
    redis: Redis,
    private readonly options: HealthStoreOptions,
    /** Lifetime of a record nobody updates (a carrier removed): @defaultValue 1 day */
    ttlMs = 86_400_000,
  ) {
    this.redis = redis as HealthRedis;
    this.ttlMs = ttlMs;
    if (typeof this.redis.smsCarrierHealthSync !== "function") {
      redis.defineCommand("smsCarrierHealthSync", { numberOfKeys: 1, lua: SYNC });
      redis.defineCommand("smsCarrierHealthTransition", { numberOfKeys: 1, lua: TRANSITION });
      redis.defineCommand("smsCarrierHealthTakeProbe", { numberOfKeys: 1, lua: TAKE_PROBE });
      redis.defineCommand("smsCarrierHealthProbeVerdict", { numberOfKeys: 1, lua: PROBE_VERDICT });
      redis.defineCommand("smsCarrierHealthReturnProbe", { numberOfKeys: 1, lua: RETURN_PROBE });
    }
  }

  key(carrierId: string): string {
    return carrierHealthKey(this.options.prefix, carrierId);
  }

  /** Adds this replica's counts since its last sync and its binds; answers the carrier's health. */
  async sync(
    carrierId: string,
    counts: { ok: number; failed: number },
    binds?: ReplicaBinds,
  ): Promise<CarrierHealthReport> {
    const windowMs = this.options.windowMs;
    const bucketMs = Math.max(1, Math.ceil(windowMs / BUCKETS_PER_WINDOW));
    const reply = await this.redis.smsCarrierHealthSync(
      this.key(carrierId),
      windowMs,
      bucketMs,
      counts.ok,
      counts.failed,
      binds ? `r:${binds.instance}` : "",
      binds ? [binds.outstanding, binds.window, binds.bound, binds.binds].join(",") : "",
      this.ttlMs,
      this.options.replicaStaleMs ?? 30_000,
    );
    return toReport(carrierId, reply);
  }

  /** Writes `transition`, computed on `record`; false when another replica changed the record first. */
  async transition(
    carrierId: string,
    record: BreakerRecord,
    transition: BreakerTransition,
  ): Promise<boolean> {
    const applied = await this.redis.smsCarrierHealthTransition(
      this.key(carrierId),
      record.version,
      transition.state,
      transition.since,
      transition.until,
      transition.trips,
      transition.resetWindow ? transition.since : 0,
      this.ttlMs,
    );
    return applied > 0;
  }

  /** One probe permit of the half-open state of `version`, if one is left. */
  async takeProbe(carrierId: string, version: number, probes: number): Promise<boolean> {
    return (await this.redis.smsCarrierHealthTakeProbe(this.key(carrierId), version, probes)) === 1;
  }

  /**
   * Gives a permit back when its probe sent nothing, so another submit probes at once instead
   * of the carrier waiting `openMs` for a verdict that will not come. Ignored when the state
   * it was taken in has moved on.
   */
  async returnProbe(carrierId: string, version: number): Promise<void> {
    await this.redis.smsCarrierHealthReturnProbe(this.key(carrierId), version);
  }

  /** A probe's verdict; ignored when the state it was taken in has moved on. */
  async probeVerdict(carrierId: string, version: number, succeeded: boolean): Promise<void> {
    await this.redis.smsCarrierHealthProbeVerdict(this.key(carrierId), version, succeeded ? "ps" : "pf");
  }
}

export function carrierHealthKey(prefix: string, carrierId: string): string {
  return `${prefix}:carrier-health:${carrierId}`;
}

/** Health of the given carriers, read (the admin CLI, the ops console): never counts anything. */
export async function readCarrierHealth(
  redis: Redis,
  prefix: string,
  carrierIds: readonly string[],
): Promise<CarrierHealthReport[]> {
  // windowMs 0: the window the dispatchers wrote into the record.
  const store = new CarrierHealthStore(redis, { prefix, windowMs: 0 });
  const client = redis as HealthRedis;
  return Promise.all(
    carrierIds.map(async (id) =>
      toReport(id, await client.smsCarrierHealthSync(store.key(id), 0, 0, 0, 0, "", "", 86_400_000, 30_000)),
    ),
  );
}

/** Every carrier a dispatcher has reported on (its record not yet expired), sorted. */
export async function listReportedCarriers(redis: Redis, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  const start = carrierHealthKey(prefix, "").length;
  for await (const keys of scanKeys(redis, `${carrierHealthKey(prefix, "")}*`))
    ids.push(...keys.map((key) => key.slice(start)));
  return [...new Set(ids)].sort();
}

function toReport(
  carrierId: string,
  [now, ok, failed, flat]: [number, number, number, string[]],
): CarrierHealthReport {
  const fields = new Map<string, string>();
  for (let i = 0; i < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  const number = (field: string) => Number(fields.get(field) ?? 0);
  const state = fields.get("st") as BreakerState | undefined;
  const record: BreakerRecord = {
    ...NEW_RECORD,
    state: state && BREAKER_STATES.includes(state) ? state : "closed",
    version: number("v"),
    since: number("since"),
    until: number("until"),
    trips: number("trips"),
    submits: Number(ok) + Number(failed),
    failures: Number(failed),
    probesTaken: number("pt"),
    probesSucceeded: number("ps"),
    probesFailed: number("pf"),
  };
  const replicas: ReplicaBinds[] = [...fields]
    .filter(([field]) => field.startsWith("r:"))
    .map(([field, value]) => {
      const [outstanding, window, bound, binds] = value.split(",").map(Number);
      return {
        instance: field.slice(2),
        outstanding: outstanding!,
        window: window!,
        bound: bound!,
        binds: binds!,
      };
    });
  const sum = (pick: (r: ReplicaBinds) => number) => replicas.reduce((total, r) => total + pick(r), 0);
  return {
    carrierId,
    reported: fields.size > 0 || record.submits > 0,
    record,
    errorRate: errorRate(record),
    replicas,
    outstanding: sum((r) => r.outstanding),
    window: sum((r) => r.window),
    bound: sum((r) => r.bound),
    binds: sum((r) => r.binds),
    now: Number(now),
  };
}
