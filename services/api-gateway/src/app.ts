import express from "express";
import type pg from "pg";
import type { ApiKeyDirectory } from "@sms/auth";
import type { PrismaClient } from "@sms/db";
import type { Logger } from "@sms/logger";
import type { MessageAcceptor } from "@sms/message-acceptance";
import type { OtpService } from "@sms/otp";
import { rateLimitMiddleware, type RateLimiter } from "@sms/rate-limit";
import type { GatewayConfig } from "./config";
import { assignRequestId, errorHandler, notFound } from "@sms/http-errors";
import { healthRoutes, type ReadinessCheck } from "@sms/health";
import { authenticate, authOf } from "./http/auth";
import { idempotency } from "./http/idempotency";
import { jsonBody, raiseBodyError } from "./http/json-body";
import { GatewayMetrics } from "./metrics";
import { buildOpenApiDocument } from "./openapi";
import { accountRoutes } from "./routes/account.route";
import { docsRoutes } from "./routes/docs.route";
import { messageRoutes } from "./routes/messages.route";
import { messagesCostOf } from "./routes/message-cost";
import { otpRoutes } from "./routes/otp.route";
import { sendRoutes } from "./routes/send.route";

export interface GatewayDeps {
  config: Pick<
    GatewayConfig,
    "BODY_LIMIT_BYTES" | "IDEMPOTENCY_TTL_HOURS" | "MAX_SEGMENTS" | "DOCS_ENABLED" | "TRUST_PROXY_HOPS"
  >;
  logger: Logger;
  prisma: PrismaClient;
  /** The pool behind prisma, for the state machine's set-based SQL. */
  pool: pg.Pool;
  directory: ApiKeyDirectory;
  limiter: RateLimiter;
  acceptor: MessageAcceptor;
  otp: OtpService;
  readiness: Record<string, ReadinessCheck>;
  isShuttingDown: () => boolean;
  /** @defaultValue a registry of its own */
  metrics?: GatewayMetrics;
}

/**
 * The gateway's Express app. Order matters: latency metric (sees every answer) → request id → health/metrics/docs (open) →
 * authentication → body → rate limit (one Redis call: requests and the day's
 * message quota) → idempotency → routes → errors.
 */
export function buildApp(deps: GatewayDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", deps.config.TRUST_PROXY_HOPS);
  app.set("query parser", "simple");
  const metrics = deps.metrics ?? new GatewayMetrics();
  app.use(metrics.http.middleware());
  app.use(assignRequestId);
  app.use(exceptPost(healthRoutes(deps.readiness, deps.isShuttingDown, metrics)));
  app.use(exceptPost(docsRoutes(buildOpenApiDocument(), deps.config.DOCS_ENABLED)));
  app.use(authenticate(deps.directory));
  app.use(jsonBody(deps.config.BODY_LIMIT_BYTES));
  app.use(
    rateLimitMiddleware({
      limiter: deps.limiter,
      limitsFor: (req, res) => {
        const { account } = authOf(res);
        return {
          accountId: account.id,
          requestsPerSecond: account.requestsPerSecond,
          dailyQuota: account.dailyQuota,
          messages: messagesCostOf(req),
        };
      },
      messagesUsed: (res) => (res.locals.idempotentReplay ? 0 : Number(res.locals.messagesAccepted ?? 0)),
      onRejected: (reason) => metrics.rateLimits.reject("http", reason),
    }),
  );
  app.use(raiseBodyError);
  app.use(idempotency(deps.pool, deps.config.IDEMPOTENCY_TTL_HOURS));
  app.use(sendRoutes(deps.acceptor));
  app.use(otpRoutes(deps.otp));
  app.use(accountRoutes(deps.prisma, { maxSegments: deps.config.MAX_SEGMENTS }));
  app.use(messageRoutes(deps.prisma, deps.pool));
  app.use(notFound);
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
