import type { DashboardSession } from "../security/sessions";
import type { Overview } from "../data/overview";
import { hourlyChart } from "./chart";
import { statusBadge } from "./components";
import { html } from "./html";
import { appPage } from "./layout";

const ORDER = ["delivered", "sent", "queued", "scheduled", "failed", "canceled"];

export function overviewPage(session: DashboardSession, overview: Overview) {
  const total = Object.values(overview.today).reduce((a, b) => a + b, 0);
  const rate = overview.deliveryRate === null ? "—" : `${(overview.deliveryRate * 100).toFixed(1)}%`;
  return appPage({
    title: "Overview",
    section: "overview",
    session,
    body: html`<div class="grid">
        <section class="card" aria-labelledby="balance-h">
          <h2 id="balance-h" class="stat-label">Balance</h2>
          <p class="stat">${overview.balance.toLocaleString("en-US")} <span class="muted">credits</span></p>
          <p class="hint">One credit per SMS segment.</p>
        </section>
        <section class="card" aria-labelledby="today-h">
          <h2 id="today-h" class="stat-label">Messages today (UTC)</h2>
          <p class="stat">${total.toLocaleString("en-US")}</p>
          <p class="hint">
            <a href="/messages?from=${new Date().toISOString().slice(0, 10)}">See today's messages</a>
          </p>
        </section>
        <section class="card" aria-labelledby="rate-h">
          <h2 id="rate-h" class="stat-label">Delivery rate today</h2>
          <p class="stat">${rate}</p>
          <p class="hint">Delivered out of those with a final receipt (delivered or failed).</p>
        </section>
      </div>
      <section class="card" aria-labelledby="status-h">
        <h2 id="status-h">Today by status</h2>
        <ul class="legend">
          ${ORDER.map(
            (status) =>
              html`<li>
                <a href="/messages?status=${status}&amp;from=${new Date().toISOString().slice(0, 10)}"
                  >${statusBadge(status)}</a
                >
                ${overview.today[status] ?? 0}
              </li>`,
          )}
        </ul>
      </section>
      <section class="card" aria-labelledby="chart-h">
        <h2 id="chart-h">Last 24 hours</h2>
        <p class="hint">Messages by the hour they were sent to us (UTC), coloured by their status now.</p>
        ${hourlyChart(overview.hours)}
      </section>`,
  });
}
