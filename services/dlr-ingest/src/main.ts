import { createLogger } from "@sms/logger";
import { loadDlrIngestConfig } from "./config";
import { startDlrIngest } from "./service";

async function main(): Promise<void> {
  const config = loadDlrIngestConfig();
  const logger = createLogger("dlr-ingest", config.LOG_LEVEL);
  const service = await startDlrIngest(config, logger);
  const shutdown = (signal: string) => {
    logger.info("shutting down", { signal });
    service.stop().then(
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
