import type pg from "pg";
import type { Logger } from "@sms/logger";
import { startLoop, type Loop } from "@sms/service-runtime";
import type { SchedulerMetrics } from "../metrics";
import { runRetentionPass, type RetentionPolicy } from "./pass";

export interface RetentionOptions {
  intervalMs: number;
  batchSize: number;
  maxPerTable: number;
  policy: RetentionPolicy;
}

/**
 * Deletes what is past retention every `intervalMs` (docs/operations.md#retention): one replica
 * at a time (an advisory lock), in short bounded transactions that never wait for a row lock,
 * so the sending path never waits for it either.
 */
export function startRetention(
  pool: pg.Pool,
  metrics: SchedulerMetrics,
  logger: Logger,
  options: RetentionOptions,
): Loop {
  return startLoop({
    name: "retention",
    intervalMs: options.intervalMs,
    logger,
    onError: () => metrics.retentionErrors.inc(),
    async tick(isStopping) {
      const started = Date.now();
      const deleted = await runRetentionPass(pool, options.policy, {
        batchSize: options.batchSize,
        maxPerTable: options.maxPerTable,
        isStopping,
      });
      if (!deleted) return;
      metrics.retentionPasses.inc();
      const total = Object.values(deleted).reduce((sum, count) => sum + count, 0);
      for (const [table, count] of Object.entries(deleted))
        if (count) metrics.retentionDeleted.inc({ table }, count);
      if (total) logger.info("deleted data past retention", { ...deleted, ms: Date.now() - started });
    },
  });
}
