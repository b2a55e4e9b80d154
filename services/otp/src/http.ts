import type { Server } from "node:http";
import express from "express";
import { healthRoutes, type ReadinessCheck } from "@sms/health";
import type { OtpServiceMetrics } from "./metrics";

/** /healthz, /readyz (DESIGN §9) and /metrics on the OTP service's own port. */
export async function startHttp(
  port: number,
  host: string,
  checks: Record<string, ReadinessCheck>,
  isShuttingDown: () => boolean,
  metrics: OtpServiceMetrics,
): Promise<{ port: number; close(): Promise<void> }> {
  const app = express();
  app.disable("x-powered-by");
  app.use(healthRoutes(checks, isShuttingDown));
  app.get("/metrics", (_req, res) => {
    res.type("text/plain; version=0.0.4").send(metrics.render());
  });
  const server: Server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
