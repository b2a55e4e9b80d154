import { createLogger } from "@sms/logger";
import { loadDispatcherConfig } from "./config";
import { startDispatcher } from "./dispatcher";

async function main(): Promise<void> {
  const config = loadDispatcherConfig();
  const logger = createLogger("dispatcher", config.LOG_LEVEL);
  const dispatcher = await startDispatcher(config, logger);
  const shutdown = (signal: string) => {
    logger.info("shutting down", { signal });
    dispatcher.stop().then(
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
