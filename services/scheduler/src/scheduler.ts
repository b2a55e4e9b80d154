import type pg from "pg";
import type { Logger } from "@sms/logger";
import type { DispatchOutbox } from "@sms/message-acceptance";
import { promoteDueScheduled } from "@sms/message-state";
import { settlesWithin, startLoop, type Loop } from "@sms/service-runtime";
import type { SchedulerMetrics } from "./metrics";

export interface PromotionOptions {
  intervalMs: number;
  batchSize: number;
  /** How long one batch's hand-off to Redis may take before the tick ends and leaves it to the relay. */
  handOffTimeoutMs: number;
}

/**
 * Every `intervalMs`: promote due scheduled messages to queued (one transaction per
 * batch, SKIP LOCKED so replicas share the work), hand them to the dispatch queues
 * (the dispatch_outbox rows written with the promotion cover a crash or a Redis
 * outage in between), and repeat until nothing is due, so a backlog drains at once.
 */
export function startPromotion(
  pool: pg.Pool,
  outbox: DispatchOutbox,
  metrics: SchedulerMetrics,
  logger: Logger,
  options: PromotionOptions,
): Loop {
  return startLoop({
    name: "promotion",
    intervalMs: options.intervalMs,
    logger,
    onError: () => metrics.promoteErrors.inc(),
    async tick(isStopping) {
      metrics.promoteTicks.inc();
      for (;;) {
        const promoted = await promoteDueScheduled(pool, { limit: options.batchSize });
        if (promoted.length === 0) return;
        metrics.promoted.inc(promoted.length);
        outbox.handOff(promoted);
        // Waiting for each batch's hand-off keeps promotion from running far ahead of
        // Redis; when Redis hangs, the rows wait in dispatch_outbox for the relay.
        if (!(await settlesWithin(outbox.settle(), options.handOffTimeoutMs))) {
          logger.warn("dispatch hand-off is slow; the outbox relay will take over", {
            count: promoted.length,
          });
          return;
        }
        logger.debug("promoted scheduled messages", { count: promoted.length });
        if (promoted.length < options.batchSize || isStopping()) return;
      }
    },
  });
}
