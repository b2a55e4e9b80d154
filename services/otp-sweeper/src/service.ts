import { createDatabase } from "@sms/db";
import type { Logger } from "@sms/logger";
import type { OtpSweeperConfig } from "./config";
import { orderedStop, settlesWithin, startHealthServer } from "@sms/service-runtime";
import { OtpSweeperMetrics } from "./metrics";
import { startSweep } from "./sweep";

export interface RunningOtpSweeper {
  /** Port of /healthz, /readyz and /metrics. */
  port: number;
  metrics: OtpSweeperMetrics;
  /**
   * Graceful stop: not ready, end the sweep after its current step (bounded by
   * SHUTDOWN_TIMEOUT_MS), then close the database and the HTTP port. Every step is its
   * own transaction, so a sweep cut short leaves nothing half done.
   */
  stop(): Promise<void>;
}

/** Starts the OTP sweep and the health port; used by main.ts and the tests. */
export async function startOtpSweeper(config: OtpSweeperConfig, logger: Logger): Promise<RunningOtpSweeper> {
  const database = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: "otp-sweeper",
  });
  const metrics = new OtpSweeperMetrics();
  let shuttingDown = false;
  // The sweep needs PostgreSQL only: the OTP's SMS goes through sms.dispatch from the
  // gateway's acceptance, never from here.
  const http = await startHealthServer({
    port: config.PORT,
    host: config.HOST,
    readiness: { postgres: database.pool },
    isShuttingDown: () => shuttingDown,
    metrics: metrics.registry,
  });
  const sweep = startSweep(database.pool, metrics, logger, {
    intervalMs: config.OTP_SWEEP_INTERVAL_MS,
    batchSize: config.OTP_SWEEP_BATCH_SIZE,
  });
  logger.info("otp-sweeper started", { port: http.port });

  const stop = orderedStop({
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    steps: [
      { name: "readiness", run: () => (shuttingDown = true) },
      {
        name: "sweep",
        run: async ({ within }) => {
          if (!(await within(sweep.stop())))
            logger.warn("the sweep did not finish within the shutdown bound; the next start carries on");
        },
      },
      {
        // pool.end() waits for checked-out clients: one parked by a step that overran the
        // bound would hold it forever. Exiting drops the connection and PostgreSQL rolls it back.
        name: "database",
        run: async ({ left }) => {
          if (!(await settlesWithin(database.close(), Math.max(left(), 1000))))
            logger.warn("the database pool did not close within the shutdown bound");
        },
      },
      { name: "health port", run: () => http.close() },
      { name: "log", run: () => logger.info("otp-sweeper stopped") },
    ],
  });
  return { port: http.port, metrics, stop };
}
