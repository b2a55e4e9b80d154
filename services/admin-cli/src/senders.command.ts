import type { Command } from "commander";
import { newId } from "@sms/ids";
import { accountId, senderId } from "./arguments";
import { CommandError } from "./errors";
import { formatDate, formatTable, printResult, type CliIo } from "./output";
import { findAccountOrFail, isPrismaError, type Db } from "./records";

/** Authorizes `value` as a sender id of the account; a CommandError when it already is. */
export async function addSenderId(db: Db, account: string, value: string): Promise<{ id: string }> {
  await findAccountOrFail(db, account);
  const id = newId("snd");
  try {
    await db.senderId.create({ data: { id, accountId: account, value } });
  } catch (error) {
    if (isPrismaError(error, "P2002"))
      throw new CommandError(`Sender id "${value}" is already authorized for ${account}.`);
    throw error;
  }
  return { id };
}

export function registerSenderCommands(program: Command, io: CliIo): void {
  const sender = program.command("sender").description("Authorize the sender ids an account may send from");

  sender
    .command("add")
    .description(
      "Authorize a sender id: 1-11 letters/digits/spaces with a letter, or up to 15 digits with optional +",
    )
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<senderId>", "the sender id, quoted if it has spaces", senderId)
    .action(async (account: string, value: string, _options: unknown, command: Command) => {
      const { id } = await addSenderId(io.db.prisma, account, value);
      printResult(io, command, {
        json: { id, account_id: account, sender_id: value },
        lines: [`Authorized sender id "${value}" for ${account}.`],
      });
    });

  sender
    .command("remove")
    .description("Withdraw a sender id")
    .argument("<accountId>", "the account (acc_…)", accountId)
    // Not validated beyond being given: an id stored under older rules must stay removable.
    .argument("<senderId>", "the sender id")
    .action(async (account: string, value: string, _options: unknown, command: Command) => {
      const { count } = await io.db.prisma.senderId.deleteMany({ where: { accountId: account, value } });
      if (count === 0) {
        await findAccountOrFail(io.db.prisma, account);
        throw new CommandError(`Sender id "${value}" is not authorized for ${account}.`);
      }
      printResult(io, command, {
        json: { account_id: account, sender_id: value, removed: true },
        lines: [`Removed sender id "${value}" from ${account}.`],
      });
    });

  sender
    .command("list")
    .description("List an account's sender ids")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (account: string, _options: unknown, command: Command) => {
      await findAccountOrFail(io.db.prisma, account);
      const senders = await io.db.prisma.senderId.findMany({
        where: { accountId: account },
        orderBy: { value: "asc" },
      });
      printResult(io, command, {
        json: senders.map((s) => ({ id: s.id, sender_id: s.value, created_at: s.createdAt.toISOString() })),
        lines:
          senders.length === 0
            ? [`No sender ids for ${account}.`]
            : formatTable(
                ["SENDER ID", "ADDED"],
                senders.map((s) => [s.value, formatDate(s.createdAt)]),
              ),
      });
    });
}
