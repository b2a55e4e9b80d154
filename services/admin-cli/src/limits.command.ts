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
}
