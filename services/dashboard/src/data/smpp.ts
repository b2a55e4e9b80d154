import { resetSmppPassword } from "@sms/auth";
import type { PrismaClient } from "@sms/db";
import type { Redis } from "@sms/redis";

/**
 * The smpp-server's bind leases of an account (services/smpp-server/src/bind-leases.ts):
 * a sorted set of lease ids scored by expiry in Redis milliseconds, renewed by the replica
 * holding the bind. A test checks this key against the real BindLeases.
 */
export function bindLeaseKey(prefix: string, accountId: string): string {
  return `${prefix}:smpp:binds:{${accountId}}`;
}

/** Open binds of the account across every smpp-server replica: leases not yet expired. */
export async function countOpenBinds(redis: Redis, prefix: string, accountId: string): Promise<number> {
  const [seconds, micros] = await redis.time();
  const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  return redis.zcount(bindLeaseKey(prefix, accountId), `(${nowMs}`, "+inf");
}

/**
 * The account's SMPP credential and one page of its sender ids in alphabetical order
 * (keyset on the value, unique per account): `after` is the last value of the previous page.
 */
export async function loadSmppSettings(
  prisma: PrismaClient,
  accountId: string,
  page: { after: string; size: number },
) {
  const [credential, senders, account] = await Promise.all([
    prisma.smppCredential.findUnique({
      where: { accountId },
      select: { systemId: true, maxBinds: true, failedAttempts: true, lockedUntil: true, createdAt: true },
    }),
    prisma.senderId.findMany({
      where: { accountId, ...(page.after && { value: { gt: page.after } }) },
      orderBy: { value: "asc" },
      take: page.size + 1,
    }),
    prisma.account.findUniqueOrThrow({ where: { id: accountId }, select: { allowedCountries: true } }),
  ]);
  const shown = senders.slice(0, page.size);
  const next = senders.length > page.size ? (shown[shown.length - 1]?.value ?? null) : null;
  return {
    credential,
    senders: shown,
    nextSendersAfter: next,
    allowedCountries: account.allowedCountries,
  };
}

/** A new SMPP password for the account's own credential, through the code the CLI's `smpp reset` uses. */
export function resetAccountSmppPassword(prisma: PrismaClient, accountId: string) {
  return resetSmppPassword(prisma, { accountId });
}
