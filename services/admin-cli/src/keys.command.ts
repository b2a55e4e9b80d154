import type { Command } from "commander";
import {
  issueApiKey as issueStoredApiKey,
  PERMISSIONS,
  revokeApiKey,
  type IssuedApiKey,
  type Permission,
} from "@sms/auth";
import type { ApiKey } from "@sms/db";
import { newId } from "@sms/ids";
import { accountId, displayName, keyId, permissionList } from "./arguments";
import { CommandError } from "./errors";
import { formatDate, formatTable, printResult, type CliIo } from "./output";
import { findAccountOrFail, type Db } from "./records";

/** Issues a key for an account (a CommandError when it does not exist) through @sms/auth. */
export async function issueApiKey(
  tx: Db,
  input: { accountId: string; name: string; permissions: readonly Permission[] },
): Promise<IssuedApiKey> {
  await findAccountOrFail(tx, input.accountId);
  return issueStoredApiKey(tx, { id: newId("key"), ...input });
}

/** A key as listings show it: everything but the hash. */
export function describeKey(key: Omit<ApiKey, "hash">) {
  return {
    id: key.id,
    account_id: key.accountId,
    name: key.name,
    prefix: key.prefix,
    permissions: key.permissions,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

export function formatKeyTable(keys: ReturnType<typeof describeKey>[]): string[] {
  return formatTable(
    ["ID", "NAME", "PREFIX", "PERMISSIONS", "CREATED", "LAST USED", "REVOKED"],
    keys.map((k) => [
      k.id,
      k.name,
      k.prefix,
      k.permissions.join(","),
      k.created_at,
      k.last_used_at ?? "-",
      k.revoked_at ?? "-",
    ]),
  );
}

export function registerKeyCommands(program: Command, io: CliIo): void {
  const key = program.command("key").description("Issue, revoke and list API keys");

  key
    .command("create")
    .description("Issue an API key and print it once (only its hash is stored)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .option("--name <name>", "a label to tell keys apart", displayName, "default")
    .option(
      "--permissions <list>",
      `comma-separated, from: ${PERMISSIONS.join(", ")} (default: all)`,
      permissionList,
    )
    .action(async (id: string, options: { name: string; permissions?: Permission[] }, command: Command) => {
      const issued = await issueApiKey(io.db.prisma, {
        accountId: id,
        name: options.name,
        permissions: options.permissions ?? PERMISSIONS,
      });
      printResult(io, command, {
        json: {
          id: issued.id,
          account_id: id,
          key: issued.key,
          prefix: issued.prefix,
          name: issued.name,
          permissions: issued.permissions,
        },
        lines: [
          issued.key,
          `Key ${issued.id} "${issued.name}" (${issued.permissions.join(",")}) for ${id}.`,
          "Store it now: it is shown only this once.",
        ],
      });
    });

  key
    .command("revoke")
    .description("Revoke an API key (idempotent: revoking twice keeps the first time)")
    .argument("<keyId>", "the key (key_…)", keyId)
    .action(async (id: string, _options: unknown, command: Command) => {
      const revoked = await revokeApiKey(io.db.prisma, { keyId: id });
      if (!revoked?.key.revokedAt) throw new CommandError(`API key ${id} not found.`);
      const { key: found, alreadyRevoked } = revoked;
      printResult(io, command, {
        json: { ...describeKey(found), already_revoked: alreadyRevoked },
        lines: [
          alreadyRevoked
            ? `Key ${id} was already revoked at ${formatDate(found.revokedAt)}.`
            : `Revoked key ${id} at ${formatDate(found.revokedAt)}.`,
        ],
      });
    });

  key
    .command("list")
    .description("List an account's API keys (never their hashes)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (id: string, _options: unknown, command: Command) => {
      await findAccountOrFail(io.db.prisma, id);
      const keys = await io.db.prisma.apiKey.findMany({
        where: { accountId: id },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        omit: { hash: true },
      });
      const described = keys.map(describeKey);
      printResult(io, command, {
        json: described,
        lines: described.length === 0 ? [`No API keys for ${id}.`] : formatKeyTable(described),
      });
    });
}
