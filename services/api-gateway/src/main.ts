import { createLogger } from "@sms/logger";
import { loadGatewayConfig } from "./config";
import { startGateway } from "./server";

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger("api-gateway", config.LOG_LEVEL);
  const gateway = await startGateway(config, logger);
  const shutdown = (signal: string) => {
    logger.info("shutting down", { signal });
    gateway.stop().then(
      () => process.exit(0),
      (error) => {
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
