import type { DashboardSession } from "../security/sessions";
import { actionButton, secretBox, table, time } from "./components";
import { html } from "./html";
import { appPage } from "./layout";

export function smppPage(options: {
  session: DashboardSession;
  credential: {
    systemId: string;
    maxBinds: number;
    failedAttempts: number;
    lockedUntil: Date | null;
    createdAt: Date;
  } | null;
  openBinds: number | null;
  senders: { value: string; createdAt: Date }[];
  nextSendersAfter: string | null;
  isFirstSendersPage: boolean;
  /** ISO 3166-1 alpha-2 codes; empty: every country. */
  allowedCountries: string[];
  newPassword?: string;
}) {
  const { session, credential } = options;
  const locked =
    credential?.lockedUntil && credential.lockedUntil > new Date() ? credential.lockedUntil : null;
  return appPage({
    title: "SMPP & sender ids",
    section: "smpp",
    session,
    body: html`${
        options.newPassword
          ? secretBox(
              "Your new SMPP password",
              options.newPassword,
              "Shown only this once; it is stored hashed. Binds with the old password are refused from now on.",
            )
          : ""
      }
      <section class="card" aria-labelledby="smpp-h">
        <h2 id="smpp-h">SMPP credentials</h2>
        ${
          credential
            ? html`<dl class="facts">
                  <dt>system_id</dt>
                  <dd><code>${credential.systemId}</code></dd>
                  <dt>Binds allowed at once</dt>
                  <dd>${credential.maxBinds}</dd>
                  <dt>Open binds now</dt>
                  <dd>
                    ${options.openBinds === null ? html`<span class="muted">unknown (Redis did not answer)</span>` : `${options.openBinds} of ${credential.maxBinds}`}
                  </dd>
                  <dt>Wrong passwords in a row</dt>
                  <dd>
                    ${credential.failedAttempts}${locked ? html` — <strong>locked</strong> until ${time(locked)}; resetting the password lifts the lock` : ""}
                  </dd>
                  <dt>Issued</dt>
                  <dd>${time(credential.createdAt)}</dd>
                </dl>
                <p class="hint">
                  Open binds are counted across every SMPP server from the bind leases they hold; a bind's
                  type and address are known only to the server it is on.
                </p>
                <div class="actions">
                  ${actionButton({ action: "/settings/smpp/reset-password", label: "Reset SMPP password", csrf: session.csrfToken, variant: "danger", confirm: "Reset the SMPP password? New binds with the old one are refused from now on." })}
                </div>`
            : html`<p>
                Your account has no SMPP access. SMPP is set up during technical onboarding: contact support
                to get a system_id.
              </p>`
        }
      </section>
      <section class="card" aria-labelledby="senders-h">
        <h2 id="senders-h">Sender ids</h2>
        <p class="hint">
          The names and numbers your messages may come from. Each is registered by our team; contact support
          to add one.
        </p>
        ${table(
          "Sender ids",
          ["Sender id", "Authorized"],
          options.senders.map((s) => [html`<code>${s.value}</code>`, time(s.createdAt)]),
          "No sender ids yet.",
        )}
        <nav class="pager" aria-label="Pages of sender ids">
          ${options.isFirstSendersPage ? "" : html`<a class="button button-secondary" href="/settings/smpp">« First</a>`}
          ${
            options.nextSendersAfter
              ? html`<a
                  class="button button-secondary"
                  rel="next"
                  href="/settings/smpp?after=${encodeURIComponent(options.nextSendersAfter)}"
                  >Next »</a
                >`
              : ""
          }
        </nav>
      </section>
      <section class="card" aria-labelledby="countries-h">
        <h2 id="countries-h">Destination countries</h2>
        ${
          options.allowedCountries.length === 0
            ? html`<p>Your messages may go to every country.</p>`
            : html`<p>
                Your messages may go to
                ${options.allowedCountries.map((code) => countryName(code)).join(", ")} only; others are
                refused with <code>COUNTRY_NOT_ALLOWED</code>.
              </p>`
        }
        <p class="hint">Set by our team; contact support to change it.</p>
      </section>`,
  });
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const countryName = (code: string) => `${regionNames.of(code) ?? code} (${code})`;
