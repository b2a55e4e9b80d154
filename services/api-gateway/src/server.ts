import type { Server } from "node:http";
import { listenExpress, startHealthServer } from "@sms/service-runtime";
import type { Logger } from "@sms/logger";
import { buildApp } from "./app";
import type { GatewayConfig } from "./config";
import { createGatewayDeps } from "./deps";
import { GatewayMetrics } from "./metrics";

export interface RunningGateway {
  server: Server;
  port: number;
  /** The internal port: /healthz, /readyz with each dependency's state, /metrics. */
  healthPort: number;
  /** Graceful stop: not ready, stop accepting, finish in-flight requests (bounded), close dependencies. */
  stop(): Promise<void>;
}

/** Builds and starts the gateway; used by main.ts and by tests that need a real process-like gateway. */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const deps = createGatewayDeps(config, logger);
  const metrics = deps.metrics ?? new GatewayMetrics();
  const app = buildApp({ ...deps, metrics });
  const server = listenExpress(app, config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  // Keep-alive longer than typical load balancers' idle timeout, so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  // After PORT listens, so /readyz is never 200 before the API answers. In cluster mode every
  // worker listens here too, sharing the port as PORT is; a scrape answers for all of them.
  const health = await startHealthServer({
    port: config.HEALTH_PORT,
    host: config.HOST,
    readiness: deps.readiness,
    isShuttingDown: deps.isShuttingDown,
    metrics,
  });
  deps.startBackground();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  logger.info("api-gateway listening", { port, healthPort: health.port });
  return {
    server,
    port,
    healthPort: health.port,
    async stop() {
      deps.beginShutdown();
      // A request that still arrives on a kept-alive connection gets its answer, then the
      // connection closes; without this, busy clients kept sending work until the deadline.
      // Before the app's own listener, which may answer at once (headers already sent after it).
      server.prependListener("request", (_req, res) => res.setHeader("connection", "close"));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // close() drops the connections idle at that moment; the others as they finish their request.
      const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_TIMEOUT_MS);
      await closed;
      clearInterval(idleSweep);
      clearTimeout(deadline);
      // Last: /readyz answered 503 throughout the drain, and the final scrape shows it.
      await health.close();
      await deps.close();
    },
  };
}
