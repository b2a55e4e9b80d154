import type { Command } from "commander";
import { accountId, inboundNumber } from "./arguments";
import { CommandError } from "./errors";
import { formatDate, formatTable, printResult, type CliIo } from "./output";
import { findAccountOrFail, isPrismaError, type Db } from "./records";

/** Gives `number` to the account; a CommandError naming the owner when another account has it. */
export async function addInboundNumber(db: Db, account: string, number: string): Promise<void> {
  await findAccountOrFail(db, account);
  try {
    await db.inboundNumber.create({ data: { number, accountId: account } });
  } catch (error) {
    if (!isPrismaError(error, "P2002")) throw error;
    const owner = await db.inboundNumber.findUnique({ where: { number } });
    throw new CommandError(
      owner?.accountId === account
        ? `${number} is already ${account}'s.`
        : `${number} belongs to ${owner?.accountId ?? "another account"}; remove it there first.`,
    );
  }
}

export function registerNumberCommands(program: Command, io: CliIo): void {
  const number = program
    .command("number")
    .description("The numbers and short codes an account receives inbound messages on");

  number
    .command("add")
    .description("Give a number (E.164) or short code (3-8 digits) to an account: one account at a time")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<number>", "+14155550100 or a short code like 12345", inboundNumber)
    .action(async (account: string, value: string, _options: unknown, command: Command) => {
      await addInboundNumber(io.db.prisma, account, value);
      printResult(io, command, {
        json: { account_id: account, number: value },
        lines: [`${value} now receives inbound messages for ${account}.`],
      });
    });

  number
    .command("remove")
    .description("Take a number away from an account (its inbound messages are then stored unassigned)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<number>", "the number or short code")
    .action(async (account: string, value: string, _options: unknown, command: Command) => {
      const { count } = await io.db.prisma.inboundNumber.deleteMany({
        where: { accountId: account, number: value },
      });
      if (count === 0) {
        await findAccountOrFail(io.db.prisma, account);
        throw new CommandError(`${value} is not a number of ${account}.`);
      }
      printResult(io, command, {
        json: { account_id: account, number: value, removed: true },
        lines: [`Removed ${value} from ${account}.`],
      });
    });

  number
    .command("list")
    .description("List an account's inbound numbers")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (account: string, _options: unknown, command: Command) => {
      await findAccountOrFail(io.db.prisma, account);
      const numbers = await io.db.prisma.inboundNumber.findMany({
        where: { accountId: account },
        orderBy: { number: "asc" },
      });
      printResult(io, command, {
        json: numbers.map((n) => ({ number: n.number, created_at: n.createdAt.toISOString() })),
        lines:
          numbers.length === 0
            ? [`No inbound numbers for ${account}.`]
            : formatTable(
                ["NUMBER", "ADDED"],
                numbers.map((n) => [n.number, formatDate(n.createdAt)]),
              ),
      });
    });
}
