import type { Suppression } from "@sms/suppressions";
import type { Page } from "../pagination";
import type { DashboardSession } from "../security/sessions";
import { actionButton, csrfInput, field, notice, pager, table, time } from "./components";
import { html } from "./html";
import { appPage } from "./layout";

const SOURCE_LABEL: Record<Suppression["source"], string> = {
  keyword: "replied STOP",
  api: "added by you (API or this page)",
  admin: "added by our team",
};

/** /settings/suppressions: the numbers the account may not send to, with add and remove. */
export function suppressionsPage(options: {
  session: DashboardSession;
  page: Page<Suppression>;
  isFirstPage: boolean;
  form?: { number: string };
  error?: string;
  changed?: { number: string; added: boolean };
}) {
  const { session } = options;
  return appPage({
    title: "Opt-outs",
    section: "suppressions",
    session,
    body: html`${
        options.changed
          ? notice(
              "success",
              options.changed.added
                ? html`<code>${options.changed.number}</code> is on the list: sends to it are refused.`
                : html`<code>${options.changed.number}</code> is off the list: sends to it are accepted again.`,
            )
          : ""
      }
      <section class="card" aria-labelledby="add-h">
        <h2 id="add-h">Add a number</h2>
        <p>
          Every send to a number on this list (API, bulk, SMPP, OTP, scheduled) is refused with
          <code>RECIPIENT_OPTED_OUT</code> and costs nothing. A recipient who replies STOP is added here;
          START takes them off.
        </p>
        <form method="post" action="/settings/suppressions" novalidate>
          ${csrfInput(session.csrfToken)}
          ${field({ label: "Number", name: "number", value: options.form?.number ?? "", required: true, maxlength: 32, inputmode: "tel", hint: "International, with a leading +, e.g. +14155550100.", error: options.error })}
          <button class="button button-primary" type="submit">Add</button>
        </form>
      </section>
      <section class="card" aria-labelledby="list-h">
        <h2 id="list-h">Numbers you may not send to</h2>
        ${table(
          "Opt-outs",
          ["Number", "How", "Replied to", "Since", ""],
          options.page.rows.map((s) => [
            html`<code>${s.number}</code>`,
            SOURCE_LABEL[s.source],
            s.replyNumber ? html`<code>${s.replyNumber}</code>` : html`<span class="muted">-</span>`,
            time(s.createdAt),
            actionButton({
              action: `/settings/suppressions/${encodeURIComponent(s.number)}/remove`,
              label: `Remove ${s.number}`,
              csrf: session.csrfToken,
              variant: "danger",
              confirm: `Send to ${s.number} again? Only do this with the recipient's consent.`,
            }),
          ]),
          "No opt-outs: nobody has replied STOP.",
        )}
        ${pager("/settings/suppressions", {}, options.page.next, options.isFirstPage)}
      </section>`,
  });
}
