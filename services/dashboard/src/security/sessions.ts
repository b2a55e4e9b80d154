import { generateSecretToken, hashSecretToken } from "@sms/auth";
import type { PrismaClient } from "@sms/db";

/** Who a request acts as: every query of a page is scoped by `accountId`. */
export interface DashboardSession {
  tokenHash: string;
  userId: string;
  email: string;
  accountId: string;
  accountName: string;
  csrfToken: string;
  expiresAt: Date;
}

export interface SessionPolicy {
  /** Absolute lifetime from sign-in. */
  lifetimeMs: number;
  /** Ends after this long without a request. */
  idleMs: number;
}

/** lastSeenAt is written at most this often per session: a page view is not a write. */
const TOUCH_INTERVAL_MS = 60_000;

/** Sessions in PostgreSQL: the cookie holds a random token, the table its SHA-256. */
export class SessionStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly policy: SessionPolicy,
  ) {}

  /** Starts a session for a user; returns the cookie token (never stored) and its expiry. */
  async create(
    user: { id: string; accountId: string },
    now = new Date(),
  ): Promise<{ token: string; expiresAt: Date }> {
    const token = generateSecretToken();
    const expiresAt = new Date(now.getTime() + this.policy.lifetimeMs);
    // A sign-in is a good moment to drop this user's dead sessions.
    await this.prisma.dashboardSession.deleteMany({ where: { userId: user.id, expiresAt: { lte: now } } });
    await this.prisma.dashboardSession.create({
      data: {
        tokenHash: hashSecretToken(token),
        userId: user.id,
        accountId: user.accountId,
        csrfToken: generateSecretToken(),
        expiresAt,
        createdAt: now,
        lastSeenAt: now,
      },
    });
    return { token, expiresAt };
  }

  /** The live session of a cookie token, or null (unknown, expired, idle too long). */
  async find(token: string | undefined, now = new Date()): Promise<DashboardSession | null> {
    if (!token || token.length > 100) return null;
    const tokenHash = hashSecretToken(token);
    const row = await this.prisma.dashboardSession.findUnique({
      where: { tokenHash },
      include: { user: { select: { email: true, account: { select: { name: true } } } } },
    });
    if (!row) return null;
    if (row.expiresAt <= now || row.lastSeenAt.getTime() + this.policy.idleMs <= now.getTime()) {
      await this.prisma.dashboardSession.deleteMany({ where: { tokenHash } });
      return null;
    }
    if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_INTERVAL_MS)
      await this.prisma.dashboardSession.updateMany({ where: { tokenHash }, data: { lastSeenAt: now } });
    return {
      tokenHash,
      userId: row.userId,
      email: row.user.email,
      accountId: row.accountId,
      accountName: row.user.account.name,
      csrfToken: row.csrfToken,
      expiresAt: row.expiresAt,
    };
  }

  /** Ends a session (sign-out). */
  async destroy(tokenHash: string): Promise<void> {
    await this.prisma.dashboardSession.deleteMany({ where: { tokenHash } });
  }
}
