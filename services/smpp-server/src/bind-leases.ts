import crypto from "node:crypto";
import type { Redis } from "@sms/redis";

// KEYS[1] the account's lease set; ARGV: lease id, max binds, lease ms. Members are lease ids
// scored by their expiry on the Redis clock, so replicas with skewed clocks agree.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
  return 1
end
return 0`;

// KEYS[1]; ARGV: lease ms, lease ids to renew. Renews only leases still held.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return 0`;

interface LeaseCommands {
  smppBindAcquire(key: string, id: string, max: number, leaseMs: number): Promise<number>;
  smppBindRenew(key: string, leaseMs: number, ...ids: string[]): Promise<number>;
}

/**
 * Bind slots per account shared by every smpp-server replica: a Redis sorted set of leases.
 * A replica renews its leases every leaseMs / 3; the slots of one that died free themselves
 * after leaseMs.
 */
export class BindLeases {
  private readonly held = new Map<string, Set<string>>();
  private readonly timer: NodeJS.Timeout;
  private readonly commands: LeaseCommands;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly leaseMs: number,
  ) {
    redis.defineCommand("smppBindAcquire", { numberOfKeys: 1, lua: ACQUIRE });
    redis.defineCommand("smppBindRenew", { numberOfKeys: 1, lua: RENEW });
    this.commands = redis as unknown as LeaseCommands;
    this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(100, leaseMs / 3));
    this.timer.unref();
  }

  /**
   * Takes one of the account's `max` slots; resolves to the lease id, or undefined when all are
   * taken. Ids start with the time of the bind, so sorting them puts the oldest binds first.
   */
  async acquire(accountId: string, max: number): Promise<string | undefined> {
    const id = `${Date.now().toString().padStart(15, "0")}-${crypto.randomUUID()}`;
    const granted = await this.commands.smppBindAcquire(this.key(accountId), id, max, this.leaseMs);
    if (granted !== 1) return undefined;
    const leases = this.held.get(accountId) ?? new Set();
    leases.add(id);
    this.held.set(accountId, leases);
    return id;
  }

  /** Frees a slot. */
  async release(accountId: string, id: string): Promise<void> {
    const leases = this.held.get(accountId);
    leases?.delete(id);
    if (leases?.size === 0) this.held.delete(accountId);
    await this.redis.zrem(this.key(accountId), id);
  }

  /**
   * The account's live leases on every replica, oldest bind first: when the limit falls below
   * their number, every replica keeps the first `max` and closes its binds among the rest.
   */
  async oldestFirst(accountId: string): Promise<string[]> {
    const now = Number((await this.redis.time())[0]) * 1000;
    const ids = await this.redis.zrangebyscore(this.key(accountId), now, "+inf");
    return ids.sort();
  }

  /** Stops renewing (the leases lapse unless released). */
  stop(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    await Promise.all(
      [...this.held].map(([accountId, ids]) =>
        this.commands.smppBindRenew(this.key(accountId), this.leaseMs, ...ids),
      ),
    );
  }

  private key(accountId: string): string {
    // The braces are a Cluster hash tag, as the rate limiter's keys have.
    return `${this.prefix}:smpp:binds:{${accountId}}`;
  }
}
