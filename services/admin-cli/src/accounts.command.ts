import type { Command } from "commander";
import { newId } from "@sms/ids";
import { dailyQuotaUsed } from "@sms/message-acceptance";
import { accountId, displayName, nonNegativeInteger } from "./arguments";
import { changeBalance } from "./credits.command";
import { describeKey, formatKeyTable } from "./keys.command";
import { formatDate, formatTable, printResult, toNumber, type CliIo } from "./output";
import { findAccountOrFail, type Db } from "./records";

/** Creates an account; opening credits go through the ledger (reason topup) like any other. */
export async function createAccount(
  tx: Db,
  input: { name: string; credits: number },
): Promise<{ id: string; balance: bigint }> {
  const id = newId("acc");
  await tx.account.create({ data: { id, name: input.name } });
  if (input.credits === 0) return { id, balance: 0n };
  const { balanceAfter } = await changeBalance(tx, {
    accountId: id,
    delta: BigInt(input.credits),
    reason: "topup",
    note: "opening credits",
  });
  return { id, balance: balanceAfter };
}

export function registerAccountCommands(program: Command, io: CliIo): void {
  const account = program.command("account").description("Create, list and inspect accounts");

  account
    .command("create")
    .description("Create an account and print its id")
    .requiredOption("--name <name>", "a name people recognise", displayName)
    .option("--credits <n>", "opening credits", nonNegativeInteger, 0)
    .action(async (options: { name: string; credits: number }, command: Command) => {
      const created = await io.db.prisma.$transaction((tx) => createAccount(tx, options));
      printResult(io, command, {
        json: { id: created.id, name: options.name, balance: toNumber(created.balance) },
        lines: [created.id],
      });
    });

  account
    .command("list")
    .description("List every account, oldest first")
    .action(async (_options: unknown, command: Command) => {
      const accounts = await io.db.prisma.account.findMany({
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      printResult(io, command, {
        json: accounts.map((a) => ({
          id: a.id,
          name: a.name,
          status: a.status,
          balance: toNumber(a.balance),
          created_at: a.createdAt.toISOString(),
        })),
        lines:
          accounts.length === 0
            ? ["No accounts yet: create one with `account create --name <name>`."]
            : formatTable(
                ["ID", "NAME", "STATUS", "BALANCE", "CREATED"],
                accounts.map((a) => [a.id, a.name, a.status, a.balance.toString(), formatDate(a.createdAt)]),
              ),
      });
    });

  account
    .command("show")
    .description("Show an account: balance, limits, sender ids and API keys (never their hashes)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (id: string, _options: unknown, command: Command) => {
      const found = await findAccountOrFail(io.db.prisma, id);
      const [senders, keys] = await Promise.all([
        io.db.prisma.senderId.findMany({ where: { accountId: id }, orderBy: { value: "asc" } }),
        io.db.prisma.apiKey.findMany({
          where: { accountId: id },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          omit: { hash: true },
        }),
      ]);
      const limits = {
        requests_per_second: found.requestsPerSecond,
        messages_per_second: found.messagesPerSecond,
        daily_quota: found.dailyQuota,
        daily_quota_used: dailyQuotaUsed(found),
        max_batch_size: found.maxBatchSize,
      };
      printResult(io, command, {
        json: {
          id: found.id,
          name: found.name,
          status: found.status,
          balance: toNumber(found.balance),
          limits,
          sender_ids: senders.map((s) => s.value),
          keys: keys.map(describeKey),
          created_at: found.createdAt.toISOString(),
        },
        lines: [
          `Account ${found.id} "${found.name}" (${found.status}), created ${formatDate(found.createdAt)}`,
          `Balance: ${found.balance} credits`,
          `Limits: ${found.requestsPerSecond} requests/s, ${found.messagesPerSecond} messages/s, ` +
            `${found.dailyQuota} messages/day (${limits.daily_quota_used} today), ${found.maxBatchSize} per batch`,
          `Sender ids: ${senders.length > 0 ? senders.map((s) => s.value).join(", ") : "none"}`,
          `API keys: ${keys.length === 0 ? "none" : ""}`.trimEnd(),
          ...(keys.length > 0 ? formatKeyTable(keys.map(describeKey)).map((line) => `  ${line}`) : []),
        ],
      });
    });
}
