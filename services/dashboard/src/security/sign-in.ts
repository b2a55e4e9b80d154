import {
  clientBucket,
  decoyPasswordHash,
  hashSecretToken,
  hashPassword,
  normalizeEmail,
  verifyPassword,
} from "@sms/auth";
import type { PrismaClient } from "@sms/db";
import { lockedUntil, type LockoutPolicy } from "./lockout";

export type SignInResult =
  | { outcome: "signed-in"; user: { id: string; accountId: string } }
  | { outcome: "wrong-credentials" }
  /** Refused: too many failures for this e-mail address, or from this client address. */
  | { outcome: "locked"; until: Date; by: "email" | "ip" };

export interface SignInPolicy extends LockoutPolicy {
  /** Failures from one client address (any e-mail) within the window that lock it out too. */
  ipAttempts: number;
}

/** Attempts older than this are deleted as new ones arrive: the lockout never looks further back. */
const HISTORY_KEEP_MS = 24 * 3600 * 1000;

/**
 * Checks an e-mail and password under the lockouts: per e-mail address, and per client
 * address (IPv6 by its /64, so one host does not get a bucket per address). The counting
 * is one short transaction, serialized by advisory locks (client address first, then
 * e-mail, always in that order), that records the attempt as a failure before the password
 * is looked at, so parallel guesses cannot slip past either limit. scrypt then runs with no
 * database connection held (thirty slow hashes held thirty pooled
 * connections and starved every page); a match turns the attempt into a success. An
 * unknown address, a user who has not chosen a password yet and a wrong password look the
 * same from outside (the same answer, a decoy hash so the same time) and all count towards
 * both lockouts. A success wipes the e-mail's count, not the client address's: signing in
 * to one's own account must not buy more guesses at others.
 */
export async function signIn(
  prisma: PrismaClient,
  input: { email: string; password: string; ip: string | undefined },
  policy: SignInPolicy,
  now = new Date(),
): Promise<SignInResult> {
  const email = normalizeEmail(input.email).slice(0, 254);
  const ip = input.ip === undefined ? undefined : clientBucket(input.ip);
  const counted = await countAttempt(prisma, { email, ip }, policy, now);
  if (counted.outcome === "locked") return counted;
  const { attemptId, user } = counted;
  const stored = user?.passwordHash ?? (await decoyPasswordHash());
  const matches = (await verifyPassword(input.password, stored)) && Boolean(user?.passwordHash);
  if (!matches || !user) return { outcome: "wrong-credentials" };
  await prisma.$transaction([
    prisma.dashboardLoginAttempt.update({ where: { id: attemptId }, data: { succeeded: true } }),
    prisma.dashboardUser.update({ where: { id: user.id }, data: { lastSignInAt: now } }),
  ]);
  return { outcome: "signed-in", user: { id: user.id, accountId: user.accountId } };
}

type Counted =
  | Extract<SignInResult, { outcome: "locked" }>
  | {
      outcome: "counted";
      attemptId: bigint;
      user: { id: string; accountId: string; passwordHash: string | null } | null;
    };

/** Checks both lockouts and records the attempt as a failure, in one short transaction. */
function countAttempt(
  prisma: PrismaClient,
  { email, ip }: { email: string; ip: string | undefined },
  policy: SignInPolicy,
  now: Date,
): Promise<Counted> {
  const windowStart = new Date(now.getTime() - policy.windowMs);
  return prisma.$transaction(
    async (tx): Promise<Counted> => {
      const lock = (key: string) =>
        tx.$queryRaw`SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtext(${key}))) AS locked`;
      if (ip) {
        await lock(`dashboard-sign-in-ip:${ip}`);
        const failures = await tx.dashboardLoginAttempt.findMany({
          where: { ip, succeeded: false, at: { gt: windowStart } },
          orderBy: { at: "desc" },
          take: policy.ipAttempts,
          select: { succeeded: true, at: true },
        });
        const until = lockedUntil(failures, now, { attempts: policy.ipAttempts, windowMs: policy.windowMs });
        if (until) return { outcome: "locked", until, by: "ip" };
      }
      await lock(`dashboard-sign-in:${email}`);
      const history = await tx.dashboardLoginAttempt.findMany({
        where: { email, at: { gt: windowStart } },
        orderBy: { at: "desc" },
        take: policy.attempts + 1,
        select: { succeeded: true, at: true },
      });
      const until = lockedUntil(history, now, policy);
      // A locked address is refused before the password is looked at; the refusal is not
      // recorded, so the lock ends when the window says, not later.
      if (until) return { outcome: "locked", until, by: "email" };
      await tx.dashboardLoginAttempt.deleteMany({
        where: { email, at: { lt: new Date(now.getTime() - HISTORY_KEEP_MS) } },
      });
      const attempt = await tx.dashboardLoginAttempt.create({
        data: { email, succeeded: false, ip: ip ?? null, at: now },
        select: { id: true },
      });
      const user = await tx.dashboardUser.findUnique({
        where: { email },
        select: { id: true, accountId: true, passwordHash: true },
      });
      return { outcome: "counted", attemptId: attempt.id, user };
    },
    { timeout: 10_000, maxWait: 10_000 },
  );
}

/** Shortest password we accept; the longest keeps scrypt's input reasonable. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/** Why a chosen password is refused, or undefined. */
export function findPasswordProblem(password: string, email: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return "Do not use your e-mail address.";
  if (new Set(password).size < 4) return "Use more different characters.";
  return undefined;
}

/** The invite of a token, if it is still valid: the e-mail address it is for. */
export async function findInvite(
  prisma: PrismaClient,
  token: string,
  now = new Date(),
): Promise<{ email: string } | null> {
  if (token.length > 100) return null;
  const user = await prisma.dashboardUser.findUnique({
    where: { inviteTokenHash: hashSecretToken(token) },
    select: { email: true, inviteExpiresAt: true },
  });
  return user && user.inviteExpiresAt && user.inviteExpiresAt > now ? { email: user.email } : null;
}

/**
 * Sets the password of the invite's user and uses the invite up (a link works once);
 * the user's other sessions end, as after any password change. Null when the invite is
 * unknown, used or expired.
 */
export async function acceptInvite(
  prisma: PrismaClient,
  token: string,
  password: string,
  now = new Date(),
): Promise<{ id: string; accountId: string } | null> {
  const passwordHash = await hashPassword(password);
  return prisma.$transaction(async (tx) => {
    const user = await tx.dashboardUser.findUnique({ where: { inviteTokenHash: hashSecretToken(token) } });
    if (!user?.inviteExpiresAt || user.inviteExpiresAt <= now) return null;
    const { count } = await tx.dashboardUser.updateMany({
      where: { id: user.id, inviteTokenHash: user.inviteTokenHash },
      data: { passwordHash, inviteTokenHash: null, inviteExpiresAt: null },
    });
    if (count !== 1) return null;
    await tx.dashboardSession.deleteMany({ where: { userId: user.id } });
    return { id: user.id, accountId: user.accountId };
  });
}
