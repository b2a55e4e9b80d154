import type pg from "pg";

/** What a bind acts as: the account, its limits and its authorized sender ids. */
export interface BoundAccount {
  id: string;
  status: "active" | "suspended";
  requestsPerSecond: number;
  dailyQuota: number;
  senderIds: ReadonlySet<string>;
  /** Destination countries the account may send to; empty: all. */
  allowedCountries: ReadonlySet<string>;
}

// Plain SQL, not the ORM: its query compiler spent ~100 ms of CPU per read of this shape,
// a stall of the event loop that every submit in the window waited behind.
const LOAD_ACCOUNT = `
SELECT a.id, a.status, a.requests_per_second, a.daily_quota, a.allowed_countries,
       COALESCE((SELECT array_agg(s.value) FROM sender_ids s WHERE s.account_id = a.id), '{}') AS sender_ids
FROM accounts a WHERE a.id = $1`;

/**
 * Reads accounts for binds and submits, cached briefly per process (as API keys are in
 * the gateway): a sender id added, a suspension or a new limit applies within `cacheSeconds`
 * (plus one read). Submits that find the entry expired share ONE read.
 */
export class AccountDirectory {
  private readonly cache = new Map<string, { account: BoundAccount | null; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<BoundAccount | null>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly cacheSeconds: number,
  ) {}

  /** The account, or null when it does not exist. */
  async get(accountId: string): Promise<BoundAccount | null> {
    const cached = this.cache.get(accountId);
    if (cached && cached.expiresAt > Date.now()) return cached.account;
    let pending = this.loading.get(accountId);
    if (!pending) {
      pending = this.load(accountId).finally(() => this.loading.delete(accountId));
      this.loading.set(accountId, pending);
    }
    return pending;
  }

  /** Drops the cached entry: the next read sees the account as it is now (a suspension, new limits). */
  forget(accountId: string): void {
    this.cache.delete(accountId);
  }

  private async load(accountId: string): Promise<BoundAccount | null> {
    const startedAt = Date.now();
    const { rows } = await this.pool.query({
      name: "smpp-load-account",
      text: LOAD_ACCOUNT,
      values: [accountId],
    });
    const row = rows[0];
    const account: BoundAccount | null = row
      ? {
          id: row.id,
          status: row.status,
          requestsPerSecond: row.requests_per_second,
          dailyQuota: row.daily_quota,
          senderIds: new Set(row.sender_ids as string[]),
          allowedCountries: new Set(row.allowed_countries as string[]),
        }
      : null;
    this.cache.set(accountId, { account, expiresAt: startedAt + this.cacheSeconds * 1000 });
    return account;
  }
}
