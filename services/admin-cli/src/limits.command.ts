import type { Command } from "commander";
import { accountId, INT4_MAX, positiveInteger } from "./arguments";
import { UsageError } from "./errors";
import { printResult, type CliIo } from "./output";
import { accountNotFound, isPrismaError } from "./records";

// Bulk requests carry at most this many items, whatever an account's limit (docs/rate-limits.md).
const MAX_BATCH_CEILING = 100_000;

interface LimitOptions {
  rps?: number;
  mps?: number;
  dailyQuota?: number;
  maxBatch?: number;
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });

/** ISO 3166-1 alpha-2 codes, upper-cased; a code ICU names no country for is a usage error. */
function countryCodes(values: string[]): string[] {
  const codes = [...new Set(values.map((value) => value.trim().toUpperCase()))].sort();
  const unknown = codes.filter((code) => {
    const name = /^[A-Z]{2}$/.test(code) ? regionNames.of(code) : undefined;
    return !name || name === code || name === "Unknown Region";
  });
  if (unknown.length > 0)
    throw new UsageError(`not ISO 3166-1 alpha-2 country codes: ${unknown.join(", ")} (e.g. US, GB, DE).`);
  return codes;
}

export function registerLimitCommands(program: Command, io: CliIo): void {
  const limits = program
    .command("limits")
    .description("Set an account's rate limits and quotas (docs/rate-limits.md)");

  limits
    .command("set")
    .description("Change one or more limits; the others stay as they are")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .option("--rps <n>", "API requests per second", positiveInteger(INT4_MAX))
    .option("--mps <n>", "messages per second handed to carriers", positiveInteger(INT4_MAX))
    .option("--daily-quota <n>", "messages accepted per UTC day", positiveInteger(INT4_MAX))
    .option(
      "--max-batch <n>",
      `largest bulk request, in items (at most ${MAX_BATCH_CEILING})`,
      positiveInteger(MAX_BATCH_CEILING),
    )
    .action(async (id: string, options: LimitOptions, command: Command) => {
      const data = {
        requestsPerSecond: options.rps,
        messagesPerSecond: options.mps,
        dailyQuota: options.dailyQuota,
        maxBatchSize: options.maxBatch,
      };
      if (Object.values(data).every((value) => value === undefined)) {
        throw new UsageError("limits set needs at least one of --rps, --mps, --daily-quota, --max-batch.");
      }
      let updated;
      try {
        updated = await io.db.prisma.account.update({ where: { id }, data });
      } catch (error) {
        if (isPrismaError(error, "P2025")) throw accountNotFound(id);
        throw error;
      }
      printResult(io, command, {
        json: {
          account_id: id,
          requests_per_second: updated.requestsPerSecond,
          messages_per_second: updated.messagesPerSecond,
          daily_quota: updated.dailyQuota,
          max_batch_size: updated.maxBatchSize,
        },
        lines: [
          `Limits of ${id}: ${updated.requestsPerSecond} requests/s, ${updated.messagesPerSecond} messages/s, ` +
            `${updated.dailyQuota} messages/day, ${updated.maxBatchSize} per batch.`,
        ],
      });
    });

  limits
    .command("countries")
    .description("Set the destination countries an account may send to (others get COUNTRY_NOT_ALLOWED)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<countries...>", "ISO 3166-1 alpha-2 codes (US GB DE …), or 'all'")
    .action(async (id: string, values: string[], _options: unknown, command: Command) => {
      const all = values.length === 1 && values[0]!.toLowerCase() === "all";
      const allowedCountries = all ? [] : countryCodes(values);
      try {
        await io.db.prisma.account.update({ where: { id }, data: { allowedCountries } });
      } catch (error) {
        if (isPrismaError(error, "P2025")) throw accountNotFound(id);
        throw error;
      }
      printResult(io, command, {
        json: { account_id: id, allowed_countries: allowedCountries.length ? allowedCountries : null },
        lines: [
          allowedCountries.length
            ? `${id} may send to ${allowedCountries.map((c) => `${c} (${regionNames.of(c)})`).join(", ")} only.`
            : `${id} may send to every country.`,
        ],
      });
    });
}
