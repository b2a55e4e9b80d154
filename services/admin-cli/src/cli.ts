import { Command, CommanderError } from "commander";
import { registerAccountCommands } from "./accounts.command";
import { registerAutoReplyCommands } from "./auto-reply.command";
import { registerCarrierCommands } from "./carriers.command";
import { registerCreditCommands } from "./credits.command";
import { registerDashboardCommands } from "./dashboard.command";
import { registerDemoCommand } from "./demo.command";
import { UserError } from "./errors";
import { registerKeyCommands } from "./keys.command";
import { registerLimitCommands } from "./limits.command";
import { registerNumberCommands } from "./numbers.command";
import type { CliIo } from "./output";
import { registerRouteCommands } from "./routes.command";
import { registerSenderCommands } from "./senders.command";
import { registerSmppCommands } from "./smpp.command";
import { registerSuppressionCommands } from "./suppressions.command";
import { registerWebhookCommands } from "./webhooks.command";

export type { CliIo } from "./output";

/** Exit codes: 0 done, 1 refused by the data (unknown id, duplicate, …) or failed, 2 bad invocation. */
const USAGE_EXIT_CODE = 2;

/** The commander program; a fresh one per run, since commander keeps parse state. */
export function buildProgram(io: CliIo): Command {
  const program = new Command("admin")
    .description(
      "Operate the SMS platform: accounts, credits, sender ids, inbound numbers, API keys, limits, carriers, routes, webhooks, dashboard users",
    )
    .option("--json", "print JSON instead of human-readable lines")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.trimEnd()),
      writeErr: (text) => io.err(text.trimEnd()),
    })
    .showHelpAfterError("(add --help for usage)");
  // Subcommands made after this point inherit the exit override and output routing.
  registerAccountCommands(program, io);
  registerCreditCommands(program, io);
  registerSenderCommands(program, io);
  registerNumberCommands(program, io);
  registerKeyCommands(program, io);
  registerLimitCommands(program, io);
  registerAutoReplyCommands(program, io);
  registerCarrierCommands(program, io);
  registerRouteCommands(program, io);
  registerWebhookCommands(program, io);
  registerSmppCommands(program, io);
  registerSuppressionCommands(program, io);
  registerDashboardCommands(program, io);
  registerDemoCommand(program, io);
  return program;
}

/** Runs one command line (without the node/script words) and returns the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (it names the argument or option).
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
    return USAGE_EXIT_CODE;
  }
  if (error instanceof UserError) {
    io.err(`error: ${error.message}`);
    return error.exitCode;
  }
  const setupProblem = describeSetupError(error);
  if (setupProblem) {
    io.err(`error: ${setupProblem}`);
    return 1;
  }
  // Anything else is a bug: keep the stack for whoever reports it.
  io.err(
    `error: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return 1;
}

// Prisma's codes for a database it cannot use (P1xxx) or a schema it does not find (P2021/P2022),
// and Node's for a connection that never opened.
const UNREACHABLE_CODES = new Set([
  "P1000",
  "P1001",
  "P1003",
  "P1008",
  "P1010",
  "P1011",
  "P1017",
  "ECONNREFUSED",
  "ENOTFOUND",
  "ETIMEDOUT",
  "EAI_AGAIN",
]);
const UNMIGRATED_CODES = new Set(["P2021", "P2022"]);

/** A one-line explanation when `error` means the database is unreachable or not migrated. */
function describeSetupError(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  // Prisma's message ends with the cause after a code frame; the last line is the part a person needs.
  const cause =
    error instanceof Error ? (error.message.trim().split("\n").pop() ?? error.message) : String(error);
  if (UNREACHABLE_CODES.has(code)) return `cannot use the database (check DATABASE_URL): ${cause}`;
  if (UNMIGRATED_CODES.has(code)) return `the database is not migrated (run \`pnpm migrate\`): ${cause}`;
  return undefined;
}
