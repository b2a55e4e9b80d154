import crypto from "node:crypto";
import type { Prisma, PrismaClient } from "@sms/db";

type Db = PrismaClient | Prisma.TransactionClient;

/** How long an invite link works. @defaultValue 72 h */
export const INVITE_TTL_MS = 72 * 3600 * 1000;

// RFC 5321 §4.5.3.1.3 caps a path at 256 octets, so an address at 254; the shape check is
// deliberately loose: the invite link proves the address works, a regex cannot.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The form we store and look up: trimmed and lower-cased. */
export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}

/** True for something shaped like an e-mail address of at most 254 characters. */
export function isValidEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_PATTERN.test(value);
}

/** A random token of 256 bits (session cookies, invite links, CSRF tokens). */
export function generateSecretToken(): string {
  return crypto.randomBytes(32).toString("base64url");
}

/** SHA-256 hex of a token: what we store. 256 random bits need no slow hash (as API keys). */
export function hashSecretToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

export class DashboardInviteError extends Error {
  override readonly name = "DashboardInviteError";
}

/**
 * Invites a person to an account's dashboard: creates the user (without a password) or,
 * for a user of the same account, replaces their invite, which is also how a forgotten
 * password is reset. Returns the one-time token the link carries (only its hash is stored).
 * `newUserId` is used when the user is new (the caller's `usr_` id).
 */
export async function inviteDashboardUser(
  db: Db,
  input: { newUserId: string; accountId: string; email: string; ttlMs?: number },
  now = new Date(),
): Promise<{ userId: string; token: string; expiresAt: Date; created: boolean }> {
  const email = normalizeEmail(input.email);
  if (!isValidEmail(email)) throw new DashboardInviteError(`"${input.email}" is not an e-mail address.`);
  const token = generateSecretToken();
  const expiresAt = new Date(now.getTime() + (input.ttlMs ?? INVITE_TTL_MS));
  const invite = { inviteTokenHash: hashSecretToken(token), inviteExpiresAt: expiresAt };
  const existing = await db.dashboardUser.findUnique({ where: { email } });
  if (existing && existing.accountId !== input.accountId)
    throw new DashboardInviteError(`${email} already signs in to another account.`);
  if (existing) {
    await db.dashboardUser.update({ where: { id: existing.id }, data: invite });
    return { userId: existing.id, token, expiresAt, created: false };
  }
  await db.dashboardUser.create({
    data: { id: input.newUserId, accountId: input.accountId, email, ...invite },
  });
  return { userId: input.newUserId, token, expiresAt, created: true };
}
