import type pg from "pg";
import type { Logger } from "@sms/logger";
import { expireOverdue, timeOutReceipts, type SweepResult } from "@sms/message-state";
import { startLoop, type Loop } from "@sms/service-runtime";
import type { SchedulerMetrics } from "./metrics";

export interface ExpiryOptions {
  intervalMs: number;
  batchSize: number;
  maxPerTick: number;
  /** Seconds after its validity a sent message still waiting for receipts fails RECEIPT_TIMEOUT. */
  receiptGraceSeconds: number;
}

/**
 * The end of a message's life (docs/messages.md#validity), every `intervalMs`:
 *
 * 1. validity: scheduled and queued messages whose validity ended fail EXPIRED, with their
 *    credits back unless a part already reached a carrier (a throttled account's messages
 *    waiting in delayed jobs, a carrier down, a scheduler that was behind); the dispatcher
 *    also checks before it submits, so this catches what no job is about to look at;
 * 2. receipt timeout: sent messages with no final receipt by their validity plus the grace
 *    fail RECEIPT_TIMEOUT, so no message stays `sent` for ever.
 *
 * Both go through the state machine (history, `message.failed` webhook, SMPP receipt) in
 * batches of `batchSize`, one transaction each, read through partial indexes that hold only
 * waiting or sent messages: a pass costs what it fails, not the size of the table.
 */
export function startExpirySweeps(
  pool: pg.Pool,
  metrics: SchedulerMetrics,
  logger: Logger,
  options: ExpiryOptions,
): Loop {
  const drain = async (pass: () => Promise<SweepResult>, isStopping: () => boolean) => {
    const total: SweepResult = { failed: 0, refundedCredits: 0 };
    // A batch that comes back short means the sweep has caught up; a racing replica's locked
    // rows make a batch short too, and wait for the next tick.
    for (let full = true; full && !isStopping() && total.failed < options.maxPerTick;) {
      const result = await pass();
      total.failed += result.failed;
      total.refundedCredits += result.refundedCredits;
      full = result.failed >= options.batchSize;
    }
    return total;
  };
  return startLoop({
    name: "expiry",
    intervalMs: options.intervalMs,
    logger,
    onError: () => metrics.expiryErrors.inc(),
    async tick(isStopping) {
      const expired = await drain(() => expireOverdue(pool, { limit: options.batchSize }), isStopping);
      metrics.expired.inc(expired.failed);
      metrics.expiryRefunds.inc(expired.refundedCredits);
      const timedOut = await drain(
        () => timeOutReceipts(pool, { graceSeconds: options.receiptGraceSeconds, limit: options.batchSize }),
        isStopping,
      );
      metrics.receiptTimeouts.inc(timedOut.failed);
      if (expired.failed)
        logger.info("failed messages whose validity ended before they reached a carrier", {
          count: expired.failed,
          refunded_credits: expired.refundedCredits,
        });
      if (timedOut.failed)
        logger.info("failed sent messages whose receipts never came", { count: timedOut.failed });
    },
  });
}
