import type { PrismaClient } from "@sms/db";

/** Sign-in attempts are kept this long; the lockout never looks further back than its window. */
export const ATTEMPT_RETENTION_MS = 24 * 3600_000;

/**
 * Deletes expired sessions and old sign-in attempts. Sign-in already tidies the address it
 * checks; this catches the rest (addresses tried once by a password sprayer, sessions of people
 * who never came back), so neither table grows without bound. Safe on every replica at once.
 */
export async function purgeExpired(
  prisma: PrismaClient,
  now = new Date(),
): Promise<{ sessions: number; attempts: number }> {
  const sessions = await prisma.dashboardSession.deleteMany({ where: { expiresAt: { lte: now } } });
  const attempts = await prisma.dashboardLoginAttempt.deleteMany({
    where: { at: { lt: new Date(now.getTime() - ATTEMPT_RETENTION_MS) } },
  });
  return { sessions: sessions.count, attempts: attempts.count };
}
