import express, { type NextFunction, type Request, type Response } from "express";
import { livenessRoutes } from "@sms/service-runtime";
import { HttpMetrics } from "@sms/metrics";
import type { DashboardDeps } from "./deps";
import { NotFoundError, sendPage } from "./http";
import { cookieNames, parseCookies } from "./security/cookies";
import { CSRF_FIELD, csrfTokenMatches, isSameOrigin } from "./security/csrf";
import { authRoutes } from "./routes/auth.routes";
import { keyRoutes } from "./routes/keys.routes";
import { suppressionRoutes } from "./routes/suppressions.routes";
import { messageRoutes } from "./routes/messages.routes";
import { overviewRoutes } from "./routes/overview.routes";
import { smppRoutes } from "./routes/smpp.routes";
import { inboundRoutes } from "./routes/inbound.routes";
import { webhookRoutes } from "./routes/webhook.routes";
import { SCRIPT, STYLESHEET } from "./views/assets";
import { errorPage } from "./views/errors.view";

// No inline script or style anywhere: the CSP can forbid both. The chart's legend swatches
// use style attributes, hence 'unsafe-inline' for style attributes only (style-src-attr).
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** The dashboard's Express app: health, assets, sign-in, then the signed-in pages. */
export function buildApp(deps: DashboardDeps): express.Express {
  const { config } = deps;
  const cookies = cookieNames(config.DASHBOARD_SECURE_COOKIES);
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.TRUST_PROXY_HOPS);
  app.set("query parser", "simple");

  app.use(new HttpMetrics(deps.metrics).middleware());
  app.use(livenessRoutes());

  app.use((_req, res, next) => {
    res.set({
      "Content-Security-Policy": CSP,
      "X-Content-Type-Options": "nosniff",
      // same-origin, not no-referrer: with no-referrer Chromium sends "Origin: null" on form posts,
      // which the origin check must refuse. Nothing (an invite token in a path) leaves the site.
      "Referrer-Policy": "same-origin",
      "X-Frame-Options": "DENY",
      "Cross-Origin-Opener-Policy": "same-origin",
    });
    if (config.DASHBOARD_SECURE_COOKIES) res.set("Strict-Transport-Security", "max-age=31536000");
    next();
  });

  const asset = (body: string, type: string) => (_req: Request, res: Response) => {
    res.set("Cache-Control", "public, max-age=31536000, immutable").type(type).send(body);
  };
  app.get("/assets/dashboard.css", asset(STYLESHEET, "text/css"));
  app.get("/assets/dashboard.js", asset(SCRIPT, "text/javascript"));

  // Forms only: small url-encoded bodies, flat fields (no nested objects from qs).
  app.use(
    express.urlencoded({ extended: false, limit: config.DASHBOARD_BODY_LIMIT_BYTES, parameterLimit: 50 }),
  );

  // A cross-site POST is refused before anything reads it (the CSRF token is checked after).
  app.use((req, res, next) => {
    if (req.method === "POST" && !isSameOrigin(req.get("origin"), req.get("host")))
      return sendPage(
        res,
        403,
        errorPage(
          403,
          "This form came from another site",
          "Open the dashboard and submit the form from there.",
        ),
      );
    next();
  });

  app.use(async (req, res, next) => {
    const token = parseCookies(req.get("cookie")).get(cookies.session);
    res.locals.session = await deps.sessions.find(token);
    next();
  });

  app.use(authRoutes(deps));

  // Everything below needs a session: a browser without one goes to sign in.
  app.use((req, res, next) => {
    if (res.locals.session) return next();
    if (req.method === "GET")
      return res.redirect(303, `/sign-in?next=${encodeURIComponent(req.originalUrl)}`);
    return sendPage(
      res,
      401,
      errorPage(401, "Your session has ended", "Sign in again, then repeat what you did."),
    );
  });
  app.use((req, res, next) => {
    const session = res.locals.session as { csrfToken: string };
    if (
      req.method !== "POST" ||
      csrfTokenMatches(session.csrfToken, (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD])
    )
      return next();
    deps.logger.warn("csrf token mismatch", { path: req.path });
    return sendPage(res, 403, errorPage(403, "This form has expired", "Reload the page and try again."));
  });

  app.use(overviewRoutes(deps));
  app.use(messageRoutes(deps));
  app.use(inboundRoutes(deps));
  app.use(keyRoutes(deps));
  app.use(suppressionRoutes(deps));
  app.use(webhookRoutes(deps));
  app.use(smppRoutes(deps));

  app.use((_req, res) =>
    sendPage(
      res,
      404,
      errorPage(404, "Not found", "There is nothing here, or it belongs to another account."),
    ),
  );
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof NotFoundError)
      return sendPage(
        res,
        404,
        errorPage(404, "Not found", "There is nothing here, or it belongs to another account."),
      );
    const status = (error as { status?: unknown; type?: unknown }).status;
    if (status === 413)
      return sendPage(
        res,
        413,
        errorPage(413, "That form was too large", "Shorten what you entered and try again."),
      );
    if (typeof status === "number" && status >= 400 && status < 500)
      return sendPage(
        res,
        400,
        errorPage(400, "The form could not be read", "Reload the page and try again."),
      );
    deps.logger.error("dashboard request failed", { error });
    return sendPage(
      res,
      500,
      errorPage(500, "Something went wrong on our side", "It was logged. Try again in a moment."),
    );
  });
  return app;
}
