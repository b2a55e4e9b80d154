import type { Prisma, PrismaClient } from "@sms/db";
import { generateSmppPassword, hashSmppPassword } from "./smpp-passwords";

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Gives an SMPP credential a new password (generated unless given) and lifts its lock;
 * found by system_id (operators) or by account (the account's own dashboard).
 * Returns the password in clear, once, or null when there is no such credential.
 */
export async function resetSmppPassword(
  db: Db,
  where: { systemId: string } | { accountId: string },
  password: string = generateSmppPassword(),
): Promise<{ systemId: string; accountId: string; password: string } | null> {
  const passwordHash = await hashSmppPassword(password);
  const { count } = await db.smppCredential.updateMany({
    where,
    data: { passwordHash, failedAttempts: 0, lockedUntil: null },
  });
  if (count === 0) return null;
  const credential = await db.smppCredential.findFirst({
    where,
    select: { systemId: true, accountId: true },
  });
  return credential ? { ...credential, password } : null;
}
