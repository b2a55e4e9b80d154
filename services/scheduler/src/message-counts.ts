import type pg from "pg";
import type { Logger } from "@sms/logger";
import { foldMessageCounts } from "@sms/message-state";
import { startLoop, type Loop } from "@sms/service-runtime";
import type { SchedulerMetrics } from "./metrics";

export interface MessageCountsOptions {
  intervalMs: number;
  batchSize: number;
}

/**
 * Folds the status-change deltas into the per-account message counts every `intervalMs`
 * (docs/decisions.md#message-counts). Readers add the deltas not yet folded, so a late fold
 * never shows a wrong count: it only lets message_count_deltas grow meanwhile.
 */
export function startMessageCountsFold(
  pool: pg.Pool,
  metrics: SchedulerMetrics,
  logger: Logger,
  options: MessageCountsOptions,
): Loop {
  return startLoop({
    name: "message-counts",
    intervalMs: options.intervalMs,
    logger,
    onError: () => metrics.countErrors.inc(),
    async tick(isStopping) {
      for (let full = true; full && !isStopping();) {
        const folded = await foldMessageCounts(pool, { limit: options.batchSize });
        metrics.countDeltasFolded.inc(folded);
        full = folded >= options.batchSize;
      }
    },
  });
}
