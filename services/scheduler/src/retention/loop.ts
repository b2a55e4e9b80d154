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
      const pass = await runRetentionPass(pool, options.policy, {
        batchSize: options.batchSize,
        maxPerTable: options.maxPerTable,
        isStopping,
      });
      if (!pass) return;
      metrics.retentionPasses.inc();
      const { deleted, createdPartitions, droppedPartitions } = pass;
      const total = Object.values(deleted).reduce((sum, count) => sum + count, 0);
      for (const [table, count] of Object.entries(deleted))
        if (count) metrics.retentionDeleted.inc({ table }, count);
      for (const { table } of droppedPartitions) metrics.retentionDroppedPartitions.inc({ table });
      if (createdPartitions.length)
        logger.info("created partitions ahead", { partitions: createdPartitions });
      if (total || droppedPartitions.length)
        logger.info("deleted data past retention", {
          ...deleted,
          droppedPartitions: droppedPartitions.map(
            ({ name, rows, ms }) => `${name} (about ${rows} rows, ${ms} ms)`,
          ),
          ms: Date.now() - started,
        });
    },
  });
}
