import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import {
  generateSmppPassword,
  hashSmppPassword,
  isValidSmppPassword,
  isValidSystemId,
  resetSmppPassword,
} from "@sms/auth";
import type { SmppCredential } from "@sms/db";
import { accountId, positiveInteger } from "./arguments";
import { CommandError } from "./errors";
import { formatDate, printResult, type CliIo } from "./output";
import { findAccountOrFail, isPrismaError, type Db } from "./records";

function systemIdArgument(value: string): string {
  if (!isValidSystemId(value))
    throw new InvalidArgumentError("Expected 1-15 letters, digits, '_', '.' or '-' (SMPP 3.4 system_id).");
  return value;
}

function passwordArgument(value: string): string {
  if (!isValidSmppPassword(value))
    throw new InvalidArgumentError(
      "Expected 1-8 printable ASCII characters without spaces (SMPP 3.4 password).",
    );
  return value;
}

/** What listings show of a credential: never the hash. */
function describeCredential(credential: SmppCredential) {
  return {
    account_id: credential.accountId,
    system_id: credential.systemId,
    max_binds: credential.maxBinds,
    failed_attempts: credential.failedAttempts,
    locked_until:
      credential.lockedUntil && credential.lockedUntil > new Date()
        ? credential.lockedUntil.toISOString()
        : null,
    created_at: credential.createdAt.toISOString(),
  };
}

/**
 * Creates or changes an account's SMPP credentials. A new credential gets a generated
 * password unless one is given; a changed one keeps its password unless one is given.
 * Returns the password in clear only when it was set now (it is stored hashed).
 */
export async function setSmppCredential(
  db: Db,
  input: { accountId: string; systemId: string; password?: string; maxBinds?: number },
): Promise<{ credential: SmppCredential; password: string | undefined }> {
  await findAccountOrFail(db, input.accountId);
  const existing = await db.smppCredential.findUnique({ where: { accountId: input.accountId } });
  const password = input.password ?? (existing ? undefined : generateSmppPassword());
  const passwordHash = password ? await hashSmppPassword(password) : undefined;
  try {
    const credential = existing
      ? await db.smppCredential.update({
          where: { accountId: input.accountId },
          data: {
            systemId: input.systemId,
            ...(passwordHash ? { passwordHash, failedAttempts: 0, lockedUntil: null } : {}),
            ...(input.maxBinds ? { maxBinds: input.maxBinds } : {}),
          },
        })
      : await db.smppCredential.create({
          data: {
            accountId: input.accountId,
            systemId: input.systemId,
            passwordHash: passwordHash!,
            ...(input.maxBinds ? { maxBinds: input.maxBinds } : {}),
          },
        });
    return { credential, password };
  } catch (error) {
    if (isPrismaError(error, "P2002"))
      throw new CommandError(`system_id "${input.systemId}" is already used by another account.`);
    throw error;
  }
}

async function findBySystemId(db: Db, systemId: string): Promise<SmppCredential> {
  const credential = await db.smppCredential.findUnique({ where: { systemId } });
  if (!credential) throw new CommandError(`No SMPP credentials with system_id "${systemId}".`);
  return credential;
}

export function registerSmppCommands(program: Command, io: CliIo): void {
  const smpp = program
    .command("smpp")
    .description("SMPP credentials of customers (system_id, password, bind limit)");

  smpp
    .command("set")
    .description("Create or change an account's SMPP credentials; a new password is printed once")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .requiredOption(
      "--system-id <systemId>",
      "what the customer binds with (1-15 characters)",
      systemIdArgument,
    )
    .option(
      "--password <password>",
      "1-8 characters (default: generated for new credentials)",
      passwordArgument,
    )
    .option("--max-binds <n>", "binds the account may hold at once (default 4)", positiveInteger(1000))
    .action(
      async (
        account: string,
        options: { systemId: string; password?: string; maxBinds?: number },
        command: Command,
      ) => {
        const { credential, password } = await setSmppCredential(io.db.prisma, {
          accountId: account,
          ...options,
        });
        printResult(io, command, {
          json: { ...describeCredential(credential), ...(password ? { password } : {}) },
          lines: [
            `SMPP credentials of ${account}: system_id ${credential.systemId}, up to ${credential.maxBinds} binds.`,
            ...(password ? [`Password (shown once, stored hashed): ${password}`] : []),
          ],
        });
      },
    );

  smpp
    .command("reset")
    .description("Give a system_id a new password (printed once) and lift its lock")
    .argument("<systemId>", "the system_id", systemIdArgument)
    .option("--password <password>", "1-8 characters (default: generated)", passwordArgument)
    .action(async (systemId: string, options: { password?: string }, command: Command) => {
      const reset = await resetSmppPassword(io.db.prisma, { systemId }, options.password);
      if (!reset) throw new CommandError(`No SMPP credentials with system_id "${systemId}".`);
      const { password } = reset;
      printResult(io, command, {
        json: { system_id: systemId, account_id: reset.accountId, password },
        lines: [`New password of ${systemId} (shown once, stored hashed): ${password}`],
      });
    });

  smpp
    .command("unlock")
    .description("Lift the lock a system_id got from repeated wrong passwords, keeping its password")
    .argument("<systemId>", "the system_id", systemIdArgument)
    .action(async (systemId: string, _options: unknown, command: Command) => {
      await findBySystemId(io.db.prisma, systemId);
      await io.db.prisma.smppCredential.update({
        where: { systemId },
        data: { failedAttempts: 0, lockedUntil: null },
      });
      printResult(io, command, {
        json: { system_id: systemId, unlocked: true },
        lines: [`Unlocked ${systemId}.`],
      });
    });

  smpp
    .command("show")
    .description("Show an account's SMPP credentials (never the password)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (account: string, _options: unknown, command: Command) => {
      await findAccountOrFail(io.db.prisma, account);
      const credential = await io.db.prisma.smppCredential.findUnique({ where: { accountId: account } });
      if (!credential) throw new CommandError(`${account} has no SMPP credentials.`);
      const shown = describeCredential(credential);
      printResult(io, command, {
        json: shown,
        lines: [
          `system_id ${shown.system_id}, up to ${shown.max_binds} binds, created ${formatDate(credential.createdAt)}`,
          shown.locked_until
            ? `LOCKED until ${shown.locked_until} (admin smpp unlock ${shown.system_id})`
            : `${shown.failed_attempts} wrong passwords in a row`,
        ],
      });
    });

  smpp
    .command("remove")
    .description("Delete an account's SMPP credentials (open binds stay until they close)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (account: string, _options: unknown, command: Command) => {
      const { count } = await io.db.prisma.smppCredential.deleteMany({ where: { accountId: account } });
      if (count === 0) throw new CommandError(`${account} has no SMPP credentials.`);
      printResult(io, command, {
        json: { account_id: account, removed: true },
        lines: [`Removed the SMPP credentials of ${account}.`],
      });
    });
}
