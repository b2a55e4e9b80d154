import cluster from "node:cluster";
import { createLogger } from "@sms/logger";
import { loadGatewayConfig } from "./config";
import { startGateway } from "./server";

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger("api-gateway", config.LOG_LEVEL);
  if (config.GATEWAY_WORKERS > 1 && cluster.isPrimary)
    return superviseWorkers(config.GATEWAY_WORKERS, logger);
  const running: { gateway?: Awaited<ReturnType<typeof startGateway>> } = {};
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    // A signal during start-up stops the gateway once it has started (see below).
    if (!running.gateway) return;
    running.gateway.stop().then(
      () => process.exit(0),
      (error) => {
        logger.error("shutdown failed", { error });
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  running.gateway = await startGateway(config, logger);
  if (stopping) {
    stopping = false;
    shutdown("signal received during start-up");
  }
}

/** Forks the workers, forwards SIGTERM/SIGINT, and exits when they have all stopped. */
function superviseWorkers(count: number, logger: ReturnType<typeof createLogger>): void {
  let stopping = false;
  for (let i = 0; i < count; i++) cluster.fork();
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    logger.error("gateway worker died; replacing it", { pid: worker.process.pid, code, signal });
    cluster.fork();
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
