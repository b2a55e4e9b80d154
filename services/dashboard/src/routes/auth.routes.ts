import { Router, type Request, type Response } from "express";
import { generateSecretToken } from "@sms/auth";
import type { DashboardDeps } from "../deps";
import { formOf, sendPage, textOf } from "../http";
import { cookieNames, parseCookies, serializeCookie } from "../security/cookies";
import { CSRF_FIELD, csrfTokenMatches } from "../security/csrf";
import type { DashboardSession } from "../security/sessions";
import { acceptInvite, findInvite, findPasswordProblem, signIn } from "../security/sign-in";
import { inviteInvalidPage, invitePage, signInPage } from "../views/auth.view";
import { errorPage } from "../views/errors.view";

/** Where to go after signing in: only a path of this site (no open redirect). */
export function safeNext(value: string): string {
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(value) && !value.startsWith("/sign-in") ? value : "/";
}

/** Sign-in, invites and sign-out. Before a session exists, CSRF is a double-submit cookie. */
export function authRoutes(deps: DashboardDeps): Router {
  const { config } = deps;
  const secure = config.DASHBOARD_SECURE_COOKIES;
  const names = cookieNames(secure);
  const lifetimeSeconds = config.DASHBOARD_SESSION_HOURS * 3600;
  const router = Router();

  /** The browser's pre-session CSRF token, set now when it has none. */
  function preSessionToken(req: Request, res: Response): string {
    const existing = parseCookies(req.get("cookie")).get(names.csrf);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = generateSecretToken();
    res.append("Set-Cookie", serializeCookie(names.csrf, token, { secure }));
    return token;
  }

  function preSessionTokenMatches(req: Request): boolean {
    return csrfTokenMatches(parseCookies(req.get("cookie")).get(names.csrf), formOf(req)[CSRF_FIELD]);
  }

  async function startSession(res: Response, user: { id: string; accountId: string }): Promise<void> {
    const { token } = await deps.sessions.create(user);
    res.append(
      "Set-Cookie",
      serializeCookie(names.session, token, { secure, maxAgeSeconds: lifetimeSeconds }),
    );
  }

  router.get("/sign-in", (req, res) => {
    if (res.locals.session) return res.redirect(303, "/");
    sendPage(
      res,
      200,
      signInPage({ csrf: preSessionToken(req, res), next: safeNext(textOf(req.query, "next")) }),
    );
  });

  router.post("/sign-in", async (req, res) => {
    const form = formOf(req);
    const email = textOf(form, "email", 254);
    const next = safeNext(textOf(form, "next"));
    if (!preSessionTokenMatches(req))
      return sendPage(
        res,
        403,
        errorPage(403, "This form has expired", "Reload the sign-in page and try again."),
      );
    const result = await signIn(
      deps.db.prisma,
      { email, password: textOf(form, "password", 200), ip: req.ip },
      {
        attempts: config.DASHBOARD_LOCKOUT_ATTEMPTS,
        ipAttempts: config.DASHBOARD_IP_SIGN_IN_FAILURES,
        windowMs: config.DASHBOARD_LOCKOUT_WINDOW_MINUTES * 60_000,
      },
    );
    const csrf = preSessionToken(req, res);
    if (result.outcome === "locked") {
      res.set("Retry-After", String(Math.max(1, Math.ceil((result.until.getTime() - Date.now()) / 1000))));
      return sendPage(
        res,
        429,
        signInPage({ csrf, email, next, lockedUntil: result.until, lockedBy: result.by }),
      );
    }
    if (result.outcome === "wrong-credentials")
      return sendPage(
        res,
        401,
        signInPage({ csrf, email, next, error: "That e-mail address and password do not match." }),
      );
    await startSession(res, result.user);
    deps.logger.info("dashboard sign-in", { account_id: result.user.accountId, user_id: result.user.id });
    res.redirect(303, next);
  });

  router.get("/invite/:token", async (req, res) => {
    const invite = await findInvite(deps.db.prisma, req.params.token);
    if (!invite) return sendPage(res, 404, inviteInvalidPage());
    sendPage(
      res,
      200,
      invitePage({ csrf: preSessionToken(req, res), token: req.params.token, email: invite.email }),
    );
  });

  router.post("/invite/:token", async (req, res) => {
    const { token } = req.params;
    if (!preSessionTokenMatches(req))
      return sendPage(res, 403, errorPage(403, "This form has expired", "Open the invite link again."));
    const invite = await findInvite(deps.db.prisma, token);
    if (!invite) return sendPage(res, 404, inviteInvalidPage());
    const password = textOf(formOf(req), "password", 1000);
    const problem = findPasswordProblem(password, invite.email);
    if (problem)
      return sendPage(
        res,
        400,
        invitePage({ csrf: preSessionToken(req, res), token, email: invite.email, error: problem }),
      );
    const user = await acceptInvite(deps.db.prisma, token, password);
    if (!user) return sendPage(res, 404, inviteInvalidPage());
    await startSession(res, user);
    res.redirect(303, "/");
  });

  router.post("/sign-out", async (req, res) => {
    const session = res.locals.session as DashboardSession | null;
    // Signing out needs the session's token too: a cross-site form must not end a session.
    if (session) {
      if (!csrfTokenMatches(session.csrfToken, formOf(req)[CSRF_FIELD]))
        return sendPage(res, 403, errorPage(403, "This form has expired", "Reload the page and try again."));
      await deps.sessions.destroy(session.tokenHash);
    }
    res.append("Set-Cookie", serializeCookie(names.session, "", { secure, maxAgeSeconds: 0 }));
    res.redirect(303, "/sign-in");
  });

  return router;
}
