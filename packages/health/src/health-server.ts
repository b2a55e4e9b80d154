import type { Server } from "node:http";
import express from "express";
import { healthRoutes, type MetricsSource, type ReadinessCheck } from "./health-routes";

/** A worker's own HTTP port for /healthz and /readyz, and /metrics when given a renderer. */
export async function startHealthServer(
  port: number,
  checks: Record<string, ReadinessCheck>,
  isShuttingDown: () => boolean,
  host = "0.0.0.0",
  metrics?: MetricsSource,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const app = express();
  app.disable("x-powered-by");
  app.use(healthRoutes(checks, isShuttingDown, metrics));
  const server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  return {
    server,
    port: typeof address === "object" && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
