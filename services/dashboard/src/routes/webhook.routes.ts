import { Router, type Response } from "express";
import { isId } from "@sms/ids";
import { SecretBoxError } from "@sms/secret-box";
import { WebhookEndpointError } from "@sms/webhooks";
import { countFailedDeliveries, listAttempts, replayFailed, sendTestEvent } from "../data/webhook";
import { parseEventsForm } from "../data/webhook-events-form";
import type { DashboardDeps } from "../deps";
import { formOf, NotFoundError, sendPage, sessionOf, textOf } from "../http";
import { pageSize } from "../pagination";
import { webhookPage, type WebhookPageState } from "../views/webhook.view";

/** The SSRF guard's refusal (its class lives in a package the dashboard does not link). */
function urlRefusal(error: unknown): string | undefined {
  const e = error as { code?: unknown; reason?: unknown } | null;
  return e?.code === "ERR_SSRF_URL_NOT_ALLOWED" && typeof e.reason === "string" ? e.reason : undefined;
}

const SEALED_ELSEWHERE =
  "Your signing secret cannot be read with this deployment's key. Save the URL again to get a new secret.";

export function webhookRoutes(deps: DashboardDeps): Router {
  const { endpoints, sender } = deps;
  const { prisma } = deps.db;
  const router = Router();

  async function render(
    res: Response,
    status: number,
    extra: Partial<WebhookPageState> = {},
    cursor?: unknown,
  ) {
    const session = sessionOf(res);
    const [endpoint, attempts, failedCount] = await Promise.all([
      endpoints.get(session.accountId),
      listAttempts(prisma, session.accountId, { cursor, size: pageSize(undefined) }),
      countFailedDeliveries(prisma, session.accountId),
    ]);
    sendPage(
      res,
      status,
      webhookPage({ session, endpoint, attempts, isFirstPage: !cursor, failedCount, ...extra }),
    );
  }

  /** Runs an action that needs an endpoint; a missing one or an unreadable secret becomes a notice. */
  async function withEndpoint(res: Response, action: () => Promise<void>) {
    try {
      await action();
    } catch (error) {
      if (error instanceof WebhookEndpointError)
        return render(res, 409, { error: "Set a webhook URL first." });
      if (error instanceof SecretBoxError) return render(res, 409, { error: SEALED_ELSEWHERE });
      throw error;
    }
  }

  router.get("/settings/webhook", (req, res) => render(res, 200, {}, req.query.cursor));

  router.post("/settings/webhook", async (req, res) => {
    const session = sessionOf(res);
    const url = textOf(formOf(req), "url", 4096).trim();
    if (!url) return render(res, 400, { url, urlError: "Enter the URL we should POST events to." });
    let registered;
    try {
      registered = await endpoints.register(session.accountId, url);
    } catch (error) {
      const reason = urlRefusal(error);
      if (reason) return render(res, 400, { url, urlError: `This URL cannot be used: ${reason}.` });
      throw error;
    }
    deps.logger.info("webhook url set in the dashboard", {
      account_id: session.accountId,
      user_id: session.userId,
    });
    // As `admin webhook set`: a test event right away, so a mistake shows now.
    const test = (await sendTestEvent(endpoints, sender, session.accountId)) ?? undefined;
    await render(res, 200, {
      message: "Webhook URL saved.",
      test,
      ...(registered.secret && {
        secrets: {
          label: "Your signing secret",
          current: registered.secret,
          note: "Verify every request with it (Standard Webhooks). You can reveal it again here.",
        },
      }),
    });
  });

  router.post("/settings/webhook/reveal", (_req, res) =>
    withEndpoint(res, async () => {
      const secrets = await endpoints.reveal(sessionOf(res).accountId);
      await render(res, 200, {
        secrets: {
          label: "Signing secret",
          current: secrets.current,
          previous: secrets.previous,
          note: "Keep it secret; anyone with it can forge events.",
        },
      });
    }),
  );

  router.post("/settings/webhook/rotate", (_req, res) =>
    withEndpoint(res, async () => {
      const session = sessionOf(res);
      const rotated = await endpoints.rotate(session.accountId);
      deps.logger.info("webhook secret rotated in the dashboard", {
        account_id: session.accountId,
        user_id: session.userId,
      });
      await render(res, 200, {
        secrets: {
          label: "Your new signing secret",
          current: rotated.secret,
          note: `The old secret also signs until ${rotated.previousExpiresAt.toISOString()}: switch your receiver before then.`,
        },
      });
    }),
  );

  router.post("/settings/webhook/test", (_req, res) =>
    withEndpoint(res, async () => {
      const test = await sendTestEvent(endpoints, sender, sessionOf(res).accountId);
      if (!test) return render(res, 409, { error: "Set a webhook URL first." });
      await render(res, 200, { test });
    }),
  );

  router.post("/settings/webhook/events", (req, res) =>
    withEndpoint(res, async () => {
      const session = sessionOf(res);
      const parsed = parseEventsForm(formOf(req));
      if (parsed.value === undefined)
        return render(res, 400, { events: parsed.form, eventsError: parsed.error });
      await endpoints.setEventTypes(session.accountId, parsed.value);
      deps.logger.info("webhook event types set in the dashboard", {
        account_id: session.accountId,
        user_id: session.userId,
        event_types: parsed.value ?? "all",
      });
      await render(res, 200, {
        message: parsed.value
          ? `Your endpoint now receives ${parsed.value.join(", ")}.`
          : "Your endpoint now receives every event.",
      });
    }),
  );

  router.post("/settings/webhook/enable", (_req, res) =>
    withEndpoint(res, async () => {
      await endpoints.enable(sessionOf(res).accountId);
      await render(res, 200, { message: "Webhook endpoint enabled." });
    }),
  );

  router.post("/settings/webhook/replay", async (req, res) => {
    const session = sessionOf(res);
    const form = formOf(req);
    const eventId = textOf(form, "event", 60);
    const days = Number(textOf(form, "days", 3));
    if (eventId) {
      if (!isId("evt", eventId)) throw new NotFoundError();
      const { replayed } = await replayFailed(
        deps.db.pool,
        deps.webhookProducer,
        session.accountId,
        { eventId },
        deps.config.WEBHOOK_REPLAY_MAX_PER_REQUEST,
      );
      // Another account's event, or one that is not failed: nothing to replay, the same 404.
      if (replayed === 0) throw new NotFoundError();
      return render(res, 200, { message: `Event ${eventId} is queued again.` });
    }
    if (![1, 7, 30].includes(days)) return render(res, 400, { error: "Choose 1, 7 or 30 days." });
    const { replayed, remaining } = await replayFailed(
      deps.db.pool,
      deps.webhookProducer,
      session.accountId,
      { days },
      deps.config.WEBHOOK_REPLAY_MAX_PER_REQUEST,
    );
    const more =
      remaining > 0
        ? ` ${remaining} more in that period ${remaining === 1 ? "is" : "are"} still failed: replay again to queue the next ${Math.min(remaining, deps.config.WEBHOOK_REPLAY_MAX_PER_REQUEST)}.`
        : "";
    await render(res, 200, {
      message: `${replayed} failed deliver${replayed === 1 ? "y is" : "ies are"} queued again.${more}`,
    });
  });

  return router;
}
