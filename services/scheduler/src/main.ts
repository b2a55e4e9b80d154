import { createLogger } from "@sms/logger";
import { loadSchedulerConfig } from "./config";
import { startScheduler } from "./service";

async function main(): Promise<void> {
  const config = loadSchedulerConfig();
  const logger = createLogger("scheduler", config.LOG_LEVEL);
  const scheduler = await startScheduler(config, logger);
  const shutdown = (signal: string) => {
    logger.info("shutting down", { signal });
    // stop() is bounded; this is the backstop should something still hang.
    setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS + 5000).unref();
    scheduler.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error("shutdown failed", { error });
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
