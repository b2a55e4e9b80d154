import type pg from "pg";

/**
 * Each account's messages per second, cached for a few seconds: a dispatch job takes its
 * turns in the account's pace before it reads its messages, so that a throttled account's
 * jobs are handed on without a database read. A changed limit applies within `ttlMs`.
 */
export class AccountRates {
  private readonly cache = new Map<string, { perSecond: number; until: number }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly ttlMs = 5000,
  ) {}

  async get(accountId: string): Promise<number> {
    const hit = this.cache.get(accountId);
    if (hit && hit.until > Date.now()) return hit.perSecond;
    const { rows } = await this.pool.query<{ messages_per_second: number }>({
      name: "dispatch-account-rate",
      text: "SELECT messages_per_second FROM accounts WHERE id = $1",
      values: [accountId],
    });
    // An unknown account has no messages to send: its job finds none queued.
    const perSecond = rows[0]?.messages_per_second ?? 1;
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(accountId, { perSecond, until: Date.now() + this.ttlMs });
    return perSecond;
  }
}
