import type { PrismaClient } from "@sms/db";

/** What a bind acts as: the account, its limits and its authorized sender ids. */
export interface BoundAccount {
  id: string;
  status: "active" | "suspended";
  requestsPerSecond: number;
  dailyQuota: number;
  senderIds: ReadonlySet<string>;
}

/**
 * Reads accounts for binds and submits, cached briefly per process (as API keys are in
 * the gateway): a sender id added, a suspension or a new limit applies within `cacheSeconds`.
 */
export class AccountDirectory {
  private readonly cache = new Map<string, { account: BoundAccount | null; expiresAt: number }>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly cacheSeconds: number,
  ) {}

  /** The account, or null when it does not exist. */
  async get(accountId: string): Promise<BoundAccount | null> {
    const now = Date.now();
    const cached = this.cache.get(accountId);
    if (cached && cached.expiresAt > now) return cached.account;
    const row = await this.prisma.account.findUnique({
      where: { id: accountId },
      include: { senderIds: { select: { value: true } } },
    });
    const account: BoundAccount | null = row && {
      id: row.id,
      status: row.status,
      requestsPerSecond: row.requestsPerSecond,
      dailyQuota: row.dailyQuota,
      senderIds: new Set(row.senderIds.map((s) => s.value)),
    };
    this.cache.set(accountId, { account, expiresAt: now + this.cacheSeconds * 1000 });
    return account;
  }
}
