import type { InboundRow } from "../data/inbound";
import type { Page } from "../pagination";
import type { DashboardSession } from "../security/sessions";
import { pager, table, time } from "./components";
import { html } from "./html";
import { appPage } from "./layout";

export function inboundPage(
  session: DashboardSession,
  numbers: string[],
  page: Page<InboundRow>,
  isFirstPage: boolean,
) {
  return appPage({
    title: "Inbound",
    section: "inbound",
    session,
    body: html`<section class="card" aria-labelledby="numbers-h">
        <h2 id="numbers-h">Your numbers</h2>
        ${
          numbers.length === 0
            ? html`<p>
                Your account has no inbound number yet: contact support to get a number or short code.
              </p>`
            : html`<p>
                People can write to ${numbers.map((n, i) => html`${i > 0 ? ", " : ""}<code>${n}</code>`)}.
              </p>`
        }
        <p class="hint">
          Each message is also sent to your webhook as <code>message.received</code> and listed by
          <code>GET /v1/inbound</code>.
        </p>
      </section>
      <section class="card" aria-labelledby="inbound-h">
        <h2 id="inbound-h">Newest first</h2>
        ${table(
          "Inbound messages",
          ["From", "To", "Text", "Parts", "Received"],
          page.rows.map((m) => [
            m.from,
            m.to,
            html`${m.encoding === "hex" ? html`<code>${m.text}</code>` : m.text}${m.flags.length > 0 ? html` <span class="muted">(${m.flags.join(", ")})</span>` : ""}`,
            m.segments,
            time(m.receivedAt),
          ]),
          "No inbound messages yet.",
        )}
        ${pager("/inbound", {}, page.next, isFirstPage)}
      </section>`,
  });
}
