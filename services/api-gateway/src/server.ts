import type { Server } from "node:http";
import type { Logger } from "@sms/logger";
import { buildApp } from "./app";
import type { GatewayConfig } from "./config";
import { createGatewayDeps } from "./deps";

export interface RunningGateway {
  server: Server;
  port: number;
  /** Graceful stop: not ready, stop accepting, finish in-flight requests (bounded), close dependencies. */
  stop(): Promise<void>;
}

/** Builds and starts the gateway; used by main.ts and by tests that need a real process-like gateway. */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const deps = createGatewayDeps(config, logger);
  const app = buildApp(deps);
  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  // Keep-alive longer than typical load balancers' idle timeout, so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  deps.startBackground();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  logger.info("api-gateway listening", { port });
  return {
    server,
    port,
    async stop() {
      deps.beginShutdown();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), 8_000);
      await closed;
      clearTimeout(deadline);
      await deps.close();
    },
  };
}
