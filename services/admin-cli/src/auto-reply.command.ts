import { InvalidArgumentError, type Command } from "commander";
import { analyzeText } from "@sms/sms-encoding";
import { accountId } from "./arguments";
import { UsageError } from "./errors";
import { printResult, type CliIo } from "./output";
import { accountNotFound, isPrismaError } from "./records";

// The gateway's MAX_SEGMENTS default: a reply longer than a send may be would be refused when due.
const MAX_REPLY_SEGMENTS = 10;

/** A reply text: not blank, at most MAX_REPLY_SEGMENTS segments. */
function replyText(value: string): string {
  if (value.trim().length === 0) throw new InvalidArgumentError("Must not be blank.");
  const { segments } = analyzeText(value);
  if (segments > MAX_REPLY_SEGMENTS)
    throw new InvalidArgumentError(`Is ${segments} segments; at most ${MAX_REPLY_SEGMENTS}.`);
  return value;
}

type Replies = { stop: string | null; start: string | null; help: string | null };

function describe(id: string, replies: Replies): { json: unknown; lines: string[] } {
  return {
    json: { account_id: id, auto_replies: replies },
    lines: (["stop", "start", "help"] as const).map(
      (family) =>
        `${family.toUpperCase().padEnd(5)} ${replies[family] === null ? "(off)" : JSON.stringify(replies[family])}`,
    ),
  };
}

/**
 * `auto-reply set|off|show`: the texts an account sends back to STOP, START and HELP
 * (docs/api.md#keyword-auto-replies), off by default.
 */
export function registerAutoReplyCommands(program: Command, io: CliIo): void {
  const autoReply = program
    .command("auto-reply")
    .description("The texts an account sends back to the STOP, START and HELP keywords (off by default)");

  const update = async (
    id: string,
    data: Partial<Record<"autoReplyStop" | "autoReplyStart" | "autoReplyHelp", string | null>>,
  ) => {
    try {
      const row = await io.db.prisma.account.update({ where: { id }, data });
      return { stop: row.autoReplyStop, start: row.autoReplyStart, help: row.autoReplyHelp };
    } catch (error) {
      if (isPrismaError(error, "P2025")) throw accountNotFound(id);
      throw error;
    }
  };

  autoReply
    .command("set")
    .description("Set one or more reply texts; the others stay as they are")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .option(
      "--stop <text>",
      "sent to a sender who texted STOP (the one message a suppressed number still gets)",
      replyText,
    )
    .option("--start <text>", "sent to a sender who texted START", replyText)
    .option("--help-text <text>", "sent to a sender who texted HELP or INFO", replyText)
    .action(
      async (id: string, options: { stop?: string; start?: string; helpText?: string }, command: Command) => {
        if (options.stop === undefined && options.start === undefined && options.helpText === undefined)
          throw new UsageError("auto-reply set needs at least one of --stop, --start, --help-text.");
        const replies = await update(id, {
          autoReplyStop: options.stop,
          autoReplyStart: options.start,
          autoReplyHelp: options.helpText,
        });
        printResult(io, command, describe(id, replies));
      },
    );

  autoReply
    .command("off")
    .description("Turn off the replies to the keyword families named")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<families...>", "stop, start and/or help")
    .action(async (id: string, families: string[], _options: unknown, command: Command) => {
      const unknown = families.filter((family) => !["stop", "start", "help"].includes(family));
      if (unknown.length > 0)
        throw new UsageError(`not a keyword family: ${unknown.join(", ")} (stop, start, help).`);
      const replies = await update(id, {
        ...(families.includes("stop") ? { autoReplyStop: null } : {}),
        ...(families.includes("start") ? { autoReplyStart: null } : {}),
        ...(families.includes("help") ? { autoReplyHelp: null } : {}),
      });
      printResult(io, command, describe(id, replies));
    });

  autoReply
    .command("show")
    .description("Show an account's reply texts")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (id: string, _options: unknown, command: Command) => {
      const row = await io.db.prisma.account.findUnique({ where: { id } });
      if (!row) throw accountNotFound(id);
      printResult(
        io,
        command,
        describe(id, { stop: row.autoReplyStop, start: row.autoReplyStart, help: row.autoReplyHelp }),
      );
    });
}
