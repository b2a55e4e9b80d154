import type pg from "pg";
import type { Logger } from "@sms/logger";
import { expireDueOtps } from "@sms/otp";
import { startLoop, type Loop } from "@sms/service-runtime";
import type { OtpSweeperMetrics } from "./metrics";
import { failUnsendableOtpMessages } from "./unsendable";

export interface SweepOptions {
  intervalMs: number;
  batchSize: number;
}

/**
 * Every `intervalMs`: pending OTPs past `expires_at` become `expired` (reads already
 * answer `expired`; this makes the stored status, the dashboard and the message log
 * agree), then queued SMS of OTPs that can no longer be verified are failed. Each step
 * repeats until fewer than a batch are due. Replicas can run side by side: the expiry
 * takes rows SKIP LOCKED, and a message fails once (the state machine's guard).
 */
export function startSweep(
  pool: pg.Pool,
  metrics: OtpSweeperMetrics,
  logger: Logger,
  options: SweepOptions,
): Loop {
  return startLoop({
    name: "otp sweep",
    intervalMs: options.intervalMs,
    logger,
    onError: () => metrics.sweepErrors.inc(),
    async tick(isStopping) {
      metrics.sweeps.inc();
      for (let expired = options.batchSize; expired >= options.batchSize && !isStopping();) {
        const ids = await expireDueOtps(pool, options.batchSize);
        expired = ids.length;
        metrics.expired.inc(ids.length);
        if (ids.length) logger.debug("OTPs expired", { count: ids.length });
      }
      for (let found = options.batchSize; found >= options.batchSize && !isStopping();) {
        const failed = await failUnsendableOtpMessages(pool, options.batchSize);
        found = failed.length;
        metrics.messagesFailed.inc(failed.length);
        for (const message of failed)
          logger.info("OTP message failed before reaching a carrier", {
            message_id: message.messageId,
            otp_id: message.otpId,
            error_code: message.errorCode,
            refunded_credits: message.refundedCredits,
          });
      }
    },
  });
}
