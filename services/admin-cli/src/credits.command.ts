import type { Command } from "commander";
import type { LedgerReason } from "@sms/db";
import { accountId, nonZeroInteger, note, positiveInteger } from "./arguments";
import { CommandError } from "./errors";
import { printResult, toNumber, type CliIo } from "./output";
import { accountNotFound, isCheckViolation, isPrismaError, type Db } from "./records";

export interface BalanceChange {
  accountId: string;
  delta: bigint;
  reason: LedgerReason;
  note?: string;
}

/**
 * Moves an account's balance by `delta` and writes the ledger row, inside the caller's
 * transaction. The UPDATE is atomic (`balance = balance + delta`) and the ledger's
 * balance_after is the value that UPDATE produced: the row stays locked until commit, so
 * a concurrent charge can neither slip in between nor make the ledger disagree.
 */
export async function changeBalance(
  tx: Db,
  change: BalanceChange,
): Promise<{ entryId: bigint; balanceAfter: bigint }> {
  let balanceAfter: bigint;
  try {
    ({ balance: balanceAfter } = await tx.account.update({
      where: { id: change.accountId },
      data: { balance: { increment: change.delta } },
      select: { balance: true },
    }));
  } catch (error) {
    if (isPrismaError(error, "P2025")) throw accountNotFound(change.accountId);
    // The migration's CHECK (balance >= 0) refuses the UPDATE itself, so the check below
    // only runs where that constraint is missing; the failed statement aborts the transaction.
    if (isCheckViolation(error, "accounts_balance_not_negative")) {
      throw new CommandError(
        `Refused: ${change.delta} would take the balance of ${change.accountId} below zero; a balance never goes below zero.`,
      );
    }
    throw error;
  }
  if (balanceAfter < 0n) {
    // Throwing rolls the transaction back, so the balance is untouched.
    const before = balanceAfter - change.delta;
    throw new CommandError(
      `Refused: ${change.delta} would take the balance of ${change.accountId} from ${before} to ${balanceAfter}; a balance never goes below zero.`,
    );
  }
  const entry = await tx.creditLedgerEntry.create({
    data: {
      accountId: change.accountId,
      delta: change.delta,
      balanceAfter,
      reason: change.reason,
      note: change.note,
    },
    select: { id: true },
  });
  return { entryId: entry.id, balanceAfter };
}

export function registerCreditCommands(program: Command, io: CliIo): void {
  const credits = program
    .command("credits")
    .description("Top up or correct an account's credits (every change is a ledger row)");

  credits
    .command("add")
    .description("Add credits (ledger reason: topup)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<amount>", "credits to add, a positive whole number", positiveInteger())
    .option("--note <text>", "why, kept in the ledger", note)
    .action(async (id: string, amount: number, options: { note?: string }, command: Command) => {
      const change = { accountId: id, delta: BigInt(amount), reason: "topup" as const, note: options.note };
      const result = await io.db.prisma.$transaction((tx) => changeBalance(tx, change));
      printResult(io, command, {
        json: {
          account_id: id,
          delta: amount,
          balance: toNumber(result.balanceAfter),
          ledger_entry_id: result.entryId.toString(),
        },
        lines: [`Added ${amount} credits to ${id}; balance is now ${result.balanceAfter}.`],
      });
    });

  credits
    .command("adjust")
    .description("Correct the balance by a signed amount (ledger reason: adjustment); never below zero")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<delta>", "a whole number, negative to remove credits", nonZeroInteger)
    .requiredOption("--note <text>", "why, kept in the ledger", note)
    .action(async (id: string, delta: number, options: { note: string }, command: Command) => {
      const change = {
        accountId: id,
        delta: BigInt(delta),
        reason: "adjustment" as const,
        note: options.note,
      };
      const result = await io.db.prisma.$transaction((tx) => changeBalance(tx, change));
      printResult(io, command, {
        json: {
          account_id: id,
          delta,
          balance: toNumber(result.balanceAfter),
          ledger_entry_id: result.entryId.toString(),
        },
        lines: [`Adjusted ${id} by ${delta > 0 ? "+" : ""}${delta}; balance is now ${result.balanceAfter}.`],
      });
    });
}
