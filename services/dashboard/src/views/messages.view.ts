import type { MessageDetail, MessageRow } from "../data/messages";
import { otpStatus, type OtpRow } from "../data/otps";
import { EXPORT_MAX_DAYS } from "@sms/message-state";
import { defaultExportForm, type ParsedExportForm } from "../data/message-export-form";
import { MESSAGE_STATUSES, type ParsedFilters } from "../data/message-filters";
import type { Page } from "../pagination";
import type { DashboardSession } from "../security/sessions";
import { field, pager, selectField, statusBadge, table, time } from "./components";
import { html } from "./html";
import { appPage } from "./layout";

export function messagesPage(
  session: DashboardSession,
  parsed: ParsedFilters,
  page: Page<MessageRow>,
  isFirstPage: boolean,
  download: ParsedExportForm = defaultExportForm(),
) {
  const { form, errors } = parsed;
  const hasErrors = Object.keys(errors).length > 0;
  return appPage({
    title: "Messages",
    section: "messages",
    session,
    body: html`<section class="card" aria-labelledby="search-h">
        <h2 id="search-h">Search</h2>
        <form method="get" action="/messages" novalidate>
          <div class="filters">
            ${field({ label: "Phone number", name: "to", value: form.to, type: "search", inputmode: "tel", placeholder: "+447700900123", error: errors.to, autocomplete: "off" })}
            ${selectField({ label: "Status", name: "status", value: form.status, choices: [["", "Any status"], ...MESSAGE_STATUSES.map((s) => [s, s] as const)], error: errors.status })}
            ${field({ label: "From (UTC day)", name: "from", type: "date", value: form.from, error: errors.from })}
            ${field({ label: "Until (UTC day, inclusive)", name: "until", type: "date", value: form.until, error: errors.until })}
            ${field({ label: "Batch id", name: "batch", value: form.batch, placeholder: "bat_…", error: errors.batch, autocomplete: "off" })}
          </div>
          <div class="actions">
            <button class="button button-primary" type="submit">Search</button>
            <a class="button button-secondary" href="/messages">Clear</a>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="results-h">
        <h2 id="results-h">${hasErrors ? "Fix the search above to see messages" : "Newest first"}</h2>
        ${
          hasErrors
            ? ""
            : html`${table(
                "Messages",
                ["Message", "To", "Status", "Sender", "Segments", "Created"],
                page.rows.map((m) => [
                  html`<a href="/messages/${m.id}"><code>${m.id}</code></a
                    >${m.source === "otp" ? html` <span class="muted">(OTP)</span>` : ""}`,
                  m.to,
                  html`${statusBadge(m.status)}${m.errorCode ? html` <span class="muted">${m.errorCode}</span>` : ""}`,
                  m.senderId,
                  m.segmentCount,
                  time(m.createdAt),
                ]),
                "No messages match.",
              )}
              ${pager("/messages", form, page.next, isFirstPage)}`
        }
      </section>
      ${downloadCard(download)}`,
  });
}

/** The CSV download of a range of days (docs/api.md#export-messages: the same file as the API's). */
function downloadCard({ form, errors }: ParsedExportForm) {
  return html`<section class="card" aria-labelledby="download-h">
    <h2 id="download-h">Download as CSV</h2>
    <p class="hint">
      Every message created in the days chosen (UTC, at most ${EXPORT_MAX_DAYS}), oldest first. Text that a
      spreadsheet would run as a formula starts with an apostrophe.
    </p>
    <form method="get" action="/messages/export" novalidate>
      <div class="filters">
        ${field({ label: "First day (UTC)", name: "since", type: "date", value: form.since, error: errors.since, required: true })}
        ${field({ label: "Last day (UTC, inclusive)", name: "until", type: "date", value: form.until, error: errors.until, required: true })}
      </div>
      <div class="actions">
        <button class="button button-secondary" type="submit">Download CSV</button>
      </div>
    </form>
  </section>`;
}

export function messagePage(session: DashboardSession, detail: MessageDetail) {
  const { message } = detail;
  const isOtp = message.source === "otp";
  return appPage({
    title: `Message ${message.id}`,
    section: "messages",
    session,
    body: html`<p><a href="/messages">« All messages</a></p>
      <section class="card" aria-labelledby="facts-h">
        <h2 id="facts-h">Summary</h2>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            ${statusBadge(message.status)}${message.errorCode ? html` ${message.errorCode}: ${message.errorMessage ?? ""}` : ""}
          </dd>
          <dt>To</dt>
          <dd>${message.to}</dd>
          <dt>Sender id</dt>
          <dd>${message.senderId}</dd>
          <dt>Text</dt>
          <dd>
            ${isOtp ? html`<span class="muted">A one-time code: its text is never shown.</span>` : message.body}
          </dd>
          <dt>Encoding</dt>
          <dd>
            ${message.encoding === "GSM7" ? "GSM-7" : "UCS-2"}, ${message.segmentCount}
            segment${message.segmentCount === 1 ? "" : "s"}, ${message.creditsCharged}
            credit${message.creditsCharged === 1 ? "" : "s"}
          </dd>
          <dt>Sent through</dt>
          <dd>${message.source === "api" ? "REST API" : message.source === "smpp" ? "SMPP" : "OTP API"}</dd>
          ${
            message.batchId
              ? html`<dt>Batch</dt>
                  <dd>
                    <a href="/messages?batch=${message.batchId}"><code>${message.batchId}</code></a>
                  </dd>`
              : ""
          }
          ${
            message.otp
              ? html`<dt>OTP</dt>
                  <dd><code>${message.otp.id}</code> ${statusBadge(otpStatus(message.otp))}</dd>`
              : ""
          }
          <dt>Created</dt>
          <dd>${time(message.createdAt)}</dd>
          ${
            message.scheduledAt
              ? html`<dt>Scheduled for</dt>
                  <dd>${time(message.scheduledAt)}</dd>`
              : ""
          }
          <dt>Sent</dt>
          <dd>${time(message.sentAt)}</dd>
          <dt>Delivered</dt>
          <dd>${time(message.deliveredAt)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="timeline-h">
        <h2 id="timeline-h">Status timeline</h2>
        <ol class="timeline">
          ${message.events.map(
            (e) =>
              html`<li>
                ${statusBadge(e.status)}
                ${time(e.occurredAt)}${e.errorCode ? html` <span class="muted">${e.errorCode}${e.errorMessage ? `: ${e.errorMessage}` : ""}</span>` : ""}
              </li>`,
          )}
        </ol>
      </section>
      <section class="card" aria-labelledby="segments-h">
        <h2 id="segments-h">Segments</h2>
        ${table(
          "Segments",
          ["#", "Status", "Carrier", "Carrier message id", "Submitted", "Done", "Error"],
          message.segments.map((s) => [
            s.seq,
            statusBadge(s.status),
            s.carrierId ?? "—",
            s.carrierMessageId ?? "—",
            time(s.submittedAt),
            time(s.doneAt),
            s.errorCode ?? "—",
          ]),
          message.status === "scheduled" || message.status === "queued"
            ? "Not handed to a carrier yet."
            : "No segments were submitted.",
        )}
      </section>
      <section class="card" aria-labelledby="webhooks-h">
        <h2 id="webhooks-h">Webhook deliveries</h2>
        ${
          detail.deliveries.length === 0
            ? html`<p class="empty">
                No webhook events for this message (no endpoint was set, or they are on their way).
              </p>`
            : detail.deliveries.map(
                ({ delivery, attempts }) =>
                  html`<h3>
                      ${delivery.eventType} ${statusBadge(delivery.status)}
                      <code class="muted">${delivery.eventId}</code>
                    </h3>
                    ${table(
                      `Attempts of ${delivery.eventId}`,
                      ["#", "Started", "HTTP", "Time", "Error"],
                      attempts.map((a) => [
                        a.attempt,
                        time(a.startedAt),
                        a.statusCode ?? "—",
                        `${a.latencyMs} ms`,
                        a.error ?? "—",
                      ]),
                      delivery.status === "pending" ? "Not attempted yet." : "No attempts recorded.",
                    )}`,
              )
        }
      </section>`,
  });
}

export function otpsPage(session: DashboardSession, page: Page<OtpRow>, isFirstPage: boolean) {
  return appPage({
    title: "OTPs",
    section: "otps",
    session,
    body: html`<section class="card" aria-labelledby="otps-h">
      <h2 id="otps-h">Newest first</h2>
      <p class="hint">
        Codes are never stored in clear, so they are never shown: only whether each was verified.
      </p>
      ${table(
        "OTPs",
        ["OTP", "Phone", "Status", "Checks", "Created", "Expires", "SMS"],
        page.rows.map((o) => [
          html`<code>${o.id}</code>`,
          o.phone,
          statusBadge(otpStatus(o)),
          `${o.attempts} of ${o.maxAttempts}`,
          time(o.createdAt),
          time(o.expiresAt),
          html`<a href="/messages/${o.messageId}">message</a>`,
        ]),
        "No OTPs yet.",
      )}
      ${pager("/otps", {}, page.next, isFirstPage)}
    </section>`,
  });
}
