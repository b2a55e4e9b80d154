import express from "express";
import type pg from "pg";
import type { ApiKeyDirectory } from "@sms/auth";
import type { PrismaClient } from "@sms/db";
import type { Logger } from "@sms/logger";
import type { MessageAcceptor } from "@sms/message-acceptance";
import type { OtpService } from "@sms/otp";
import { rateLimitMiddleware, type RateLimiter } from "@sms/rate-limit";
import type { GatewayConfig } from "./config";
import { ApiError, assignRequestId, errorHandler, notFound } from "@sms/errors";
import { livenessRoutes, type ReadinessDependencies } from "@sms/service-runtime";
import { authenticate, authOf } from "./http/auth";
import { hotRoute } from "./http/hot-route";
import { idempotency } from "./http/idempotency";
import { jsonBody, raiseBodyError } from "./http/json-body";
import { GatewayMetrics } from "./metrics";
import { buildOpenApiDocument } from "./openapi";
import { accountRoutes } from "./routes/account.route";
import { docsRoutes } from "./routes/docs.route";
import { exportRoutes } from "./routes/export.route";
import { inboundRoutes } from "./routes/inbound.route";
import { messageRoutes } from "./routes/messages.route";
import { otpRoutes } from "./routes/otp.route";
import { SEND_ONE_PATH, sendOneHandlers, sendRoutes } from "./routes/send.route";
import { suppressionRoutes } from "./routes/suppressions.route";

export interface GatewayDeps {
  config: Pick<
    GatewayConfig,
    | "BODY_LIMIT_BYTES"
    | "IDEMPOTENCY_TTL_HOURS"
    | "MAX_SEGMENTS"
    | "DOCS_ENABLED"
    | "TRUST_PROXY_HOPS"
    | "EXPORTS_PER_ACCOUNT"
  >;
  logger: Logger;
  prisma: PrismaClient;
  /** The pool behind prisma, for the state machine's set-based SQL. */
  pool: pg.Pool;
  directory: ApiKeyDirectory;
  limiter: RateLimiter;
  acceptor: MessageAcceptor;
  otp: OtpService;
  readiness: ReadinessDependencies;
  isShuttingDown: () => boolean;
  /** @defaultValue a registry of its own */
  metrics?: GatewayMetrics;
}

/**
 * The gateway's Express app. Order matters: latency metric (sees every answer) → request id →
 * POST /v1/sms/send (the same door and handlers, taken directly: http/hot-route.ts) → /healthz
 * and docs (open; /readyz and /metrics are on the internal health port) →
 * authentication → body → rate limit (requests per second) → routes, each POST checking its
 * permission before its Idempotency-Key (the day's message quota is counted by the acceptor, on
 * the messages it accepts) → errors. Routing is
 * strict: no case folding, no trailing-slash aliases.
 */
export function buildApp(deps: GatewayDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.set("etag", false);
  app.set("trust proxy", deps.config.TRUST_PROXY_HOPS);
  app.set("query parser", "simple");
  const metrics = deps.metrics ?? new GatewayMetrics();
  // Every request that names an account passes this door, in this order.
  const door: express.RequestHandler[] = [
    authenticate(deps.directory),
    jsonBody(deps.config.BODY_LIMIT_BYTES),
    rateLimitMiddleware({
      limiter: deps.limiter,
      // Requests only: the day's message quota is counted where messages are accepted (@sms/message-acceptance).
      limitsFor: (_req, res) => {
        const { account } = authOf(res);
        return { accountId: account.id, requestsPerSecond: account.requestsPerSecond };
      },
      onRejected: (reason) => metrics.rateLimits.reject("http", reason),
    }),
    raiseBodyError,
  ];
  const idempotent = idempotency(deps.pool, deps.config.IDEMPOTENCY_TTL_HOURS);
  app.use(metrics.http.middleware());
  app.use(assignRequestId);
  // Nearly all traffic: the door and the route's handlers, without walking the routers below.
  app.use(
    hotRoute({
      method: "POST",
      path: SEND_ONE_PATH,
      door,
      handlers: sendOneHandlers(deps.acceptor, idempotent),
    }),
  );
  app.use(exceptPost(livenessRoutes()));
  app.use(exceptPost(docsRoutes(buildOpenApiDocument(), deps.config.DOCS_ENABLED)));
  app.use(door);
  app.use(sendRoutes(deps.acceptor, idempotent));
  app.use(otpRoutes(deps.otp, idempotent));
  app.use(accountRoutes(deps.prisma, { maxSegments: deps.config.MAX_SEGMENTS }));
  app.use(
    exportRoutes(deps.pool, {
      perAccount: deps.config.EXPORTS_PER_ACCOUNT,
      logger: deps.logger,
    }),
  );
  app.use(messageRoutes(deps.prisma, deps.pool, idempotent));
  app.use(inboundRoutes(deps.prisma));
  app.use(suppressionRoutes(deps.pool, idempotent));
  app.use(notFound);
  app.use(countQuotaRefusals(metrics));
  app.use(errorHandler(deps.logger));
  return app;
}

/**
 * The open routers answer GET (and HEAD, OPTIONS) only: a POST, the hot path, skips their
 * route matching and goes on to authentication, exactly where it would have ended up anyway.
 */
function exceptPost(router: express.RequestHandler): express.RequestHandler {
  return (req, res, next) => (req.method === "POST" ? next() : router(req, res, next));
}

/** The acceptor refuses over-quota messages; the rate-limit metric counts them as the limiter's own refusals. */
function countQuotaRefusals(metrics: GatewayMetrics): express.ErrorRequestHandler {
  return (error, _req, _res, next) => {
    if (error instanceof ApiError && error.code === "QUOTA_EXCEEDED")
      metrics.rateLimits.reject("http", "QUOTA_EXCEEDED");
    next(error);
  };
}
