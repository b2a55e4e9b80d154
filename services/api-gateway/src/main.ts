import cluster from "node:cluster";
import { once } from "node:events";
import type { Logger } from "@sms/logger";
import { serveClusterMetrics } from "@sms/metrics";
import { runService } from "@sms/service-runtime";
import { loadGatewayConfig } from "./config";
import { startGateway } from "./server";

runService({
  name: "api-gateway",
  loadConfig: () => loadGatewayConfig(),
  start: (config, logger) =>
    config.GATEWAY_WORKERS > 1 && cluster.isPrimary
      ? superviseWorkers(config.GATEWAY_WORKERS, logger)
      : startGateway(config, logger),
});

/** Forks the workers (they share the port), replaces one that dies, and on stop SIGTERMs them all and waits. */
async function superviseWorkers(count: number, logger: Logger): Promise<{ stop(): Promise<void> }> {
  let stopping = false;
  // A scrape of /metrics lands on one worker; it asks here for all of them, summed.
  serveClusterMetrics();
  for (let i = 0; i < count; i++) cluster.fork();
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    logger.error("gateway worker died; replacing it", { pid: worker.process.pid, code, signal });
    cluster.fork();
  });
  return {
    async stop() {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
      await Promise.all(
        workers.map(async (worker) => {
          const exited = once(worker, "exit");
          worker.process.kill("SIGTERM");
          await exited;
        }),
      );
    },
  };
}
