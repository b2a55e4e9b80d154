import type { EndpointView } from "@sms/webhooks";
import { WEBHOOK_EVENT_TYPES } from "@sms/webhooks";
import type { AttemptResult } from "@sms/webhooks";
import type { AttemptRow } from "../data/webhook";
import type { EventsForm } from "../data/webhook-events-form";
import type { Page } from "../pagination";
import type { DashboardSession } from "../security/sessions";
import {
  actionButton,
  csrfInput,
  field,
  fieldError,
  notice,
  pager,
  secretBox,
  statusBadge,
  table,
  time,
} from "./components";
import { html, type Html } from "./html";
import { appPage } from "./layout";

export interface WebhookPageState {
  session: DashboardSession;
  endpoint: EndpointView | null;
  attempts: Page<AttemptRow>;
  isFirstPage: boolean;
  failedCount: number;
  url?: string;
  urlError?: string;
  /** The events form as sent, shown again beside its error. */
  events?: EventsForm;
  eventsError?: string;
  /** A secret to show once (new endpoint, rotation) or on request (reveal). */
  secrets?: { label: string; current: string; previous?: string | null; note: string };
  test?: AttemptResult;
  message?: Html | string;
  error?: string;
}

const EVENT_HELP: Record<(typeof WEBHOOK_EVENT_TYPES)[number], string> = {
  "message.queued": "accepted and waiting to go to a carrier",
  "message.sent": "a carrier took it",
  "message.delivered": "the handset got it",
  "message.failed": "it will not be delivered (error_code says why, EXPIRED included)",
  "message.received": "an inbound message to one of your numbers (coming soon)",
};

/** All events, or a chosen few (checkboxes); what the endpoint has now unless a refused form is shown again. */
function eventsForm(endpoint: EndpointView, state: WebhookPageState, csrf: string) {
  const all = state.events ? state.events.all : endpoint.eventTypes === null;
  const ticked = new Set(state.events ? state.events.types : (endpoint.eventTypes ?? []));
  return html`<form method="post" action="/settings/webhook/events" novalidate>
    ${csrfInput(csrf)}
    <fieldset${state.eventsError ? html` aria-describedby="f-events-error"` : ""}>
      <legend>Events to receive</legend>
      <div class="check">
        <input type="radio" id="events-all" name="events" value="all"${all ? html` checked` : ""} />
        <label for="events-all">All events, including kinds we add later</label>
      </div>
      <div class="check">
        <input type="radio" id="events-some" name="events" value="some"${all ? "" : html` checked`} />
        <label for="events-some">Only the ones ticked here:</label>
      </div>
      ${WEBHOOK_EVENT_TYPES.map(
        (type) =>
          html`<div class="check">
            <input
              type="checkbox"
              id="event-${type.replace(".", "-")}"
              name="types"
              value="${type}"
              ${ticked.has(type) ? html` checked` : ""}
            />
            <label for="event-${type.replace(".", "-")}"><code>${type}</code>: ${EVENT_HELP[type]}</label>
          </div>`,
      )}
      ${fieldError("f-events", state.eventsError)}
    </fieldset>
    <p class="hint">Events you do not receive are not kept for later. Test events are always sent.</p>
    <button class="button button-secondary" type="submit">Save events</button>
  </form>`;
}

function testNotice(result: AttemptResult) {
  return result.outcome === "success"
    ? notice(
        "success",
        `Test event delivered: your endpoint answered HTTP ${result.statusCode} in ${result.latencyMs} ms.`,
      )
    : notice(
        "error",
        `Test event not delivered: ${result.error ?? `your endpoint answered HTTP ${result.statusCode}`} (${result.latencyMs} ms).`,
      );
}

export function webhookPage(state: WebhookPageState) {
  const { session, endpoint } = state;
  const csrf = session.csrfToken;
  return appPage({
    title: "Webhook",
    section: "webhook",
    session,
    body: html`${state.message ? notice("success", state.message) : ""}
      ${state.error ? notice("error", state.error) : ""} ${state.test ? testNotice(state.test) : ""}
      ${state.secrets ? secretBox(state.secrets.label, state.secrets.current, state.secrets.note) : ""}
      ${state.secrets?.previous ? html`<p class="hint">The previous secret also signs until the overlap ends: <code>${state.secrets.previous}</code></p>` : ""}
      <section class="card" aria-labelledby="endpoint-h">
        <h2 id="endpoint-h">Endpoint</h2>
        ${
          endpoint
            ? html`<dl class="facts">
                  <dt>URL</dt>
                  <dd><code>${endpoint.url}</code></dd>
                  <dt>Events</dt>
                  <dd>
                    ${endpoint.eventTypes === null ? "All events" : endpoint.eventTypes.map((t, i) => html`${i > 0 ? ", " : ""}<code>${t}</code>`)}
                  </dd>
                  <dt>State</dt>
                  <dd>
                    ${endpoint.enabled ? html`<span class="badge badge-delivered">enabled</span>` : html`${statusBadge("failed")} disabled (${endpoint.disabledReason ?? "?"}) since ${time(endpoint.disabledAt)}`}
                  </dd>
                  <dt>Failing since</dt>
                  <dd>${time(endpoint.failingSince)}</dd>
                  <dt>Old secret signs until</dt>
                  <dd>${time(endpoint.previousSecretExpiresAt)}</dd>
                </dl>
                <div class="actions">
                  ${actionButton({ action: "/settings/webhook/test", label: "Send a test event", csrf, variant: "primary" })}
                  ${actionButton({ action: "/settings/webhook/reveal", label: "Reveal signing secret", csrf })}
                  ${actionButton({ action: "/settings/webhook/rotate", label: "Rotate secret", csrf, describedBy: "rotate-hint" })}
                  ${endpoint.enabled ? "" : actionButton({ action: "/settings/webhook/enable", label: "Enable again", csrf })}
                </div>
                <p class="hint" id="rotate-hint">
                  After a rotation the old secret keeps signing for 24 hours, so you can switch without losing
                  events.
                </p>`
            : html`<p>
                No endpoint yet. Set one to receive <code>message.queued</code>, <code>message.sent</code>,
                <code>message.delivered</code> and <code>message.failed</code> events.
              </p>`
        }
        <form method="post" action="/settings/webhook" novalidate>
          ${csrfInput(csrf)}
          ${field({ label: endpoint ? "Change the URL" : "URL", name: "url", type: "url", value: state.url ?? endpoint?.url ?? "", required: true, maxlength: 2048, placeholder: "https://example.com/sms-events", hint: "https, no user name or password, not a private address. We send a test event when you save.", error: state.urlError })}
          <button class="button button-primary" type="submit">Save URL</button>
        </form>
        ${endpoint ? eventsForm(endpoint, state, csrf) : ""}
      </section>
      <section class="card" aria-labelledby="replay-h">
        <h2 id="replay-h">Failed deliveries</h2>
        <p>
          ${state.failedCount} deliver${state.failedCount === 1 ? "y has" : "ies have"} failed for good (out
          of retries, or the endpoint was disabled).
        </p>
        <form method="post" action="/settings/webhook/replay" class="actions">
          ${csrfInput(csrf)}
          <label for="f-days">Send again those created in the last</label>
          <select id="f-days" name="days">
            <option value="1">day</option>
            <option value="7" selected>7 days</option>
            <option value="30">30 days</option>
          </select>
          <button class="button button-secondary" type="submit">Replay failed</button>
        </form>
      </section>
      <section class="card" aria-labelledby="attempts-h">
        <h2 id="attempts-h">Recent attempts</h2>
        ${table(
          "Webhook attempts",
          ["Started", "Event", "Try", "HTTP", "Time", "Error", "Delivery", ""],
          state.attempts.rows.map((a) => [
            time(a.startedAt),
            a.messageId
              ? html`<a href="/messages/${a.messageId}"><code>${a.eventId}</code></a>`
              : html`<code>${a.eventId}</code>`,
            a.attempt,
            a.statusCode ?? "—",
            `${a.latencyMs} ms`,
            a.error ?? "—",
            a.deliveryStatus ? statusBadge(a.deliveryStatus) : "—",
            a.deliveryStatus === "failed"
              ? actionButton({
                  action: "/settings/webhook/replay",
                  label: "Replay",
                  csrf,
                  hidden: { event: a.eventId },
                })
              : "",
          ]),
          "No attempts yet.",
        )}
        ${pager("/settings/webhook", {}, state.attempts.next, state.isFirstPage)}
      </section>`,
  });
}
