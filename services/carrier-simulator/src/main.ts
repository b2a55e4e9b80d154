import { createLogger } from "@sms/logger";
import { loadSimulatorConfig, toSimulatorOptions } from "./config";
import { createCarrierSimulator } from "./simulator";

async function main(): Promise<void> {
  const config = loadSimulatorConfig();
  const logger = createLogger("carrier-simulator", config.LOG_LEVEL);
  const simulator = await createCarrierSimulator({ ...toSimulatorOptions(config), logger });
  const shutdown = (signal: string) => {
    logger.info("shutting down", { signal });
    simulator.close().then(
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
