import { InvalidArgumentError, type Command } from "commander";
import { ApiError } from "@sms/errors";
import { normalizePhone } from "@sms/message-acceptance";
import { addSuppression, listSuppressions, removeSuppression } from "@sms/suppressions";
import { accountId, positiveInteger } from "./arguments";
import { CommandError } from "./errors";
import { formatDate, formatTable, printResult, type CliIo } from "./output";
import { findAccountOrFail } from "./records";

/** The E.164 form of a number typed by an operator, or a usage error saying why not. */
function phoneNumber(value: string): string {
  try {
    return normalizePhone(value, "number");
  } catch (error) {
    if (error instanceof ApiError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

/** admin suppression add|remove|list: an account's opt-out list (docs/api.md#suppressions). */
export function registerSuppressionCommands(program: Command, io: CliIo): void {
  const suppression = program
    .command("suppression")
    .description("The numbers an account may not send to (they replied STOP, or were added)");

  suppression
    .command("add")
    .description("Add a number: every send of the account to it is refused with RECIPIENT_OPTED_OUT")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<number>", "E.164 number with a leading +", phoneNumber)
    .action(async (account: string, number: string, _options: unknown, command: Command) => {
      await findAccountOrFail(io.db.prisma, account);
      const { added, suppression: row } = await addSuppression(io.db.pool, {
        accountId: account,
        number,
        source: "admin",
      });
      printResult(io, command, {
        json: { account_id: account, number, source: row.source, added },
        lines: [
          added
            ? `Added ${number} to the suppression list of ${account}.`
            : `${number} was already on the suppression list of ${account} (${row.source}, ${formatDate(row.createdAt)}).`,
        ],
      });
    });

  suppression
    .command("remove")
    .description("Remove a number (only with the recipient's consent): sends to it are accepted again")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<number>", "E.164 number with a leading +", phoneNumber)
    .action(async (account: string, number: string, _options: unknown, command: Command) => {
      if (!(await removeSuppression(io.db.pool, account, number))) {
        await findAccountOrFail(io.db.prisma, account);
        throw new CommandError(`${number} is not on the suppression list of ${account}.`);
      }
      printResult(io, command, {
        json: { account_id: account, number, removed: true },
        lines: [`Removed ${number} from the suppression list of ${account}.`],
      });
    });

  suppression
    .command("list")
    .description("List an account's suppressed numbers, newest first")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .option("--limit <n>", "most rows shown", positiveInteger(100_000), 1000)
    .action(async (account: string, options: { limit: number }, command: Command) => {
      await findAccountOrFail(io.db.prisma, account);
      const { data, nextCursor } = await listSuppressions(io.db.pool, account, { limit: options.limit });
      const more = nextCursor ? [`(the newest ${options.limit}; more with --limit)`] : [];
      printResult(io, command, {
        json: data.map((s) => ({
          number: s.number,
          source: s.source,
          reply_number: s.replyNumber,
          created_at: s.createdAt.toISOString(),
        })),
        lines:
          data.length === 0
            ? [`No suppressed numbers for ${account}.`]
            : [
                ...formatTable(
                  ["NUMBER", "SOURCE", "REPLY NUMBER", "ADDED"],
                  data.map((s) => [s.number, s.source, s.replyNumber ?? "-", formatDate(s.createdAt)]),
                ),
                ...more,
              ],
      });
    });
}
