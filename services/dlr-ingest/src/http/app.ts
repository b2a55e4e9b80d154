import express from "express";
import type pg from "pg";
import { healthRoutes, type ReadinessCheck } from "@sms/service-runtime";
import type { Logger } from "@sms/logger";
import type { Metrics } from "../metrics";
import { ApiError, assignRequestId, errorHandler, notFound } from "@sms/errors";
import type { InboundIntake } from "@sms/carrier-receipts";
import { inboundRoutes } from "./inbound.route";
import { receiptRoutes } from "./receipts.route";

export interface AppDeps {
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
  /** Unset: the receipt endpoint is off (404). */
  receiptToken: string | undefined;
  /** Where posted inbound messages go: the intake the receiver binds use. */
  inbound: InboundIntake;
  readiness: Record<string, ReadinessCheck>;
  isShuttingDown: () => boolean;
}

/** Health, metrics and the carriers' receipt and inbound endpoints. */
export function buildApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(deps.metrics.http.middleware());
  app.use(assignRequestId);
  app.use(healthRoutes(deps.readiness, deps.isShuttingDown, deps.metrics));
  // Stopping: /readyz above says 503 while new receipts are refused (the carrier sends them
  // again, to a replica that is ready); the port stays open until the receipts in flight commit.
  app.use((_req, _res, next) => {
    if (!deps.isShuttingDown()) return next();
    next(new ApiError("SERVICE_UNAVAILABLE", "Shutting down; send it again.", { retryAfterSeconds: 1 }));
  });
  // Always on: each carrier has its own token (admin carrier inbound-token), none by default.
  app.use(inboundRoutes({ pool: deps.pool, intake: deps.inbound, metrics: deps.metrics }));
  if (deps.receiptToken)
    app.use(receiptRoutes({ pool: deps.pool, token: deps.receiptToken, metrics: deps.metrics }));
  app.use(notFound);
  app.use(
    errorHandler(deps.logger, {
      tooLarge: "A receipt or inbound message body is at most 16 KiB.",
      unavailable: "Nothing was stored; send it again shortly.",
    }),
  );
  return app;
}
