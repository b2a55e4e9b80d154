import { Prisma } from "@sms/db";
import type { Account, Carrier, PrismaClient } from "@sms/db";
import { CommandError } from "./errors";

/** Prisma's client or a transaction's: every helper here works inside or outside one. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** True when `error` is a Prisma request error with that code (P2002 unique, P2003 foreign key, P2025 record not found). */
export function isPrismaError(error: unknown, code: "P2002" | "P2003" | "P2025"): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === code;
}

/**
 * True when `error` is PostgreSQL refusing a row under the CHECK constraint `constraint`
 * (SQLSTATE 23514). Prisma has no code for it: the driver adapter's error comes through
 * as is, with the PostgreSQL code and message in its `cause`.
 */
export function isCheckViolation(error: unknown, constraint: string): boolean {
  const cause = (error as { cause?: { originalCode?: unknown; originalMessage?: unknown } } | null)?.cause;
  return (
    cause?.originalCode === "23514" &&
    typeof cause.originalMessage === "string" &&
    cause.originalMessage.includes(`"${constraint}"`)
  );
}

export function accountNotFound(accountId: string): CommandError {
  return new CommandError(`Account ${accountId} not found.`);
}

/** The account, or a CommandError naming the id. */
export async function findAccountOrFail(db: Db, accountId: string): Promise<Account> {
  const account = await db.account.findUnique({ where: { id: accountId } });
  if (!account) throw accountNotFound(accountId);
  return account;
}

export function carrierNotFound(carrierId: string): CommandError {
  return new CommandError(`Carrier ${carrierId} not found.`);
}

/** The carrier, or a CommandError naming the id. */
export async function findCarrierOrFail(db: Db, carrierId: string): Promise<Carrier> {
  const carrier = await db.carrier.findUnique({ where: { id: carrierId } });
  if (!carrier) throw carrierNotFound(carrierId);
  return carrier;
}
