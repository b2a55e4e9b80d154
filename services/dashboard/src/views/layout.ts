import type { DashboardSession } from "../security/sessions";
import { ASSET_VERSION } from "./assets";
import { csrfInput } from "./components";
import { html, type Html } from "./html";

export type Section =
  "overview" | "messages" | "otps" | "inbound" | "keys" | "webhook" | "smpp" | "suppressions";

const NAV: readonly (readonly [Section, string, string])[] = [
  ["overview", "/", "Overview"],
  ["messages", "/messages", "Messages"],
  ["otps", "/otps", "OTPs"],
  ["inbound", "/inbound", "Inbound"],
  ["keys", "/settings/api-keys", "API keys"],
  ["webhook", "/settings/webhook", "Webhook"],
  ["smpp", "/settings/smpp", "SMPP & sender ids"],
  ["suppressions", "/settings/suppressions", "Opt-outs"],
];

/** The page shell of a signed-in person: skip link, header with sign-out, navigation, main. */
export function appPage(options: {
  title: string;
  section: Section;
  session: DashboardSession;
  body: Html;
}): Html {
  const { session } = options;
  return document(
    options.title,
    html`<a class="skip-link" href="#main">Skip to content</a>
      <header class="top">
        <div class="top-inner">
          <a class="brand" href="/">SMS<span class="brand-dim"> dashboard</span></a>
          <div class="who">
            <span class="who-account">${session.accountName}</span>
            <span class="who-email">${session.email}</span>
            <form method="post" action="/sign-out" class="inline-form">
              ${csrfInput(session.csrfToken)}<button class="button button-ghost" type="submit">
                Sign out
              </button>
            </form>
          </div>
        </div>
        <nav class="nav" aria-label="Sections">
          <ul>
            ${NAV.map(
              ([section, href, label]) =>
                html`<li>
                  <a href="${href}" ${section === options.section ? html` aria-current="page"` : ""}
                    >${label}</a
                  >
                </li>`,
            )}
          </ul>
        </nav>
      </header>
      <main id="main" tabindex="-1">
        <h1>${options.title}</h1>
        ${options.body}
      </main>`,
  );
}

/** A page without a session (sign-in, invite): a centred card. */
export function publicPage(title: string, body: Html): Html {
  return document(
    title,
    html`<main id="main" class="public">
      <div class="card public-card">
        <p class="brand brand-public">SMS<span class="brand-dim"> dashboard</span></p>
        <h1>${title}</h1>
        ${body}
      </div>
    </main>`,
  );
}

function document(title: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · SMS dashboard</title>
        <link rel="stylesheet" href="/assets/dashboard.css?v=${ASSET_VERSION}" />
        <script src="/assets/dashboard.js?v=${ASSET_VERSION}" defer></script>
      </head>
      <body>
        ${body}
      </body>
    </html>`;
}
