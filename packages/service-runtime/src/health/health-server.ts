import type { Server } from "node:http";
import express from "express";
import { healthRoutes, type MetricsSource } from "./health-routes";
import { readinessChecks, type ReadinessDependencies } from "./readiness";
import { closeHttpServer } from "../close-http-server";
import { listenExpress } from "../express-server";

export interface HealthServerOptions {
  port: number;
  /** @defaultValue "0.0.0.0" */
  host?: string;
  /** What /readyz asks: PostgreSQL and Redis clients, each optional. */
  readiness: ReadinessDependencies;
  /** /readyz answers 503 once this is true, so a load balancer stops sending work. */
  isShuttingDown: () => boolean;
  /** Served at /metrics when given. */
  metrics?: MetricsSource;
}

const CLOSE_BOUND_MS = 500;

/** A worker's own HTTP port for /healthz and /readyz, and /metrics when given a renderer. */
export async function startHealthServer(
  options: HealthServerOptions,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const { port, host = "0.0.0.0", readiness, isShuttingDown, metrics } = options;
  const app = express();
  app.disable("x-powered-by");
  app.use(healthRoutes(readinessChecks(readiness), isShuttingDown, metrics));
  const server = listenExpress(app, port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  return {
    server,
    port: typeof address === "object" && address ? address.port : port,
    // A probe already asked is answered (503: the service is stopping) before its connection
    // closes: cutting it would reset the socket, and a reset can discard an answer the prober has
    // not read yet (a SIGTERM test on a loaded machine saw no 503 at all). Idle connections close
    // at once; one that is still busy after the bound is cut.
    close: () => closeHttpServer(server, CLOSE_BOUND_MS),
  };
}
