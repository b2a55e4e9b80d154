import { PERMISSIONS, type IssuedApiKey } from "@sms/auth";
import type { ApiKeyRow, NewKeyForm } from "../data/api-keys";
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
import { html } from "./html";
import { appPage } from "./layout";

const PERMISSION_HELP: Record<(typeof PERMISSIONS)[number], string> = {
  "sms:send": "send SMS (single, bulk, scheduled) and cancel",
  "sms:read": "read messages and batches",
  "otp:send": "send OTPs",
  "otp:verify": "verify OTP codes and read their status",
  "account:read": "read the balance, limits and sender ids",
};

export function keysPage(options: {
  session: DashboardSession;
  page: Page<ApiKeyRow>;
  isFirstPage: boolean;
  form?: NewKeyForm;
  errors?: Partial<Record<"name" | "permissions", string>>;
  issued?: IssuedApiKey;
  revoked?: string;
}) {
  const { session, errors = {} } = options;
  const chosen = new Set(options.form?.permissions ?? PERMISSIONS);
  return appPage({
    title: "API keys",
    section: "keys",
    session,
    body: html`${
      options.issued
        ? secretBox(
            `Your new key "${options.issued.name}"`,
            options.issued.key,
            "Copy it now and keep it in your secret store: it is shown only this once. Use it as Authorization: Bearer <key>.",
          )
        : ""
    }
${options.revoked ? notice("success", html`Key <code>${options.revoked}</code> is revoked; requests with it are refused within seconds.`) : ""}
<section class="card" aria-labelledby="new-key-h">
  <h2 id="new-key-h">Create a key</h2>
  <form method="post" action="/settings/api-keys" novalidate>
    ${csrfInput(session.csrfToken)}
    ${field({ label: "Name", name: "name", value: options.form?.name ?? "", required: true, maxlength: 64, hint: "Where the key will be used, e.g. “billing backend”.", error: errors.name })}
    <fieldset${errors.permissions ? html` aria-describedby="f-permissions-error"` : ""}>
      <legend>Permissions</legend>
      ${PERMISSIONS.map(
        (p) =>
          html`<div class="check">
            <input
              type="checkbox"
              id="perm-${p.replace(":", "-")}"
              name="permissions"
              value="${p}"
              ${chosen.has(p) ? html` checked` : ""}
            />
            <label for="perm-${p.replace(":", "-")}"><code>${p}</code>: ${PERMISSION_HELP[p]}</label>
          </div>`,
      )}
      ${fieldError("f-permissions", errors.permissions)}
    </fieldset>
    <button class="button button-primary" type="submit">Create key</button>
  </form>
</section>
<section class="card" aria-labelledby="keys-h">
  <h2 id="keys-h">Your keys</h2>
  ${table(
    "API keys",
    ["Name", "Key", "Permissions", "Created", "Last used", "State", ""],
    options.page.rows.map((k) => [
      k.name,
      html`<code>${k.prefix}…</code>`,
      k.permissions.join(", "),
      time(k.createdAt),
      k.lastUsedAt ? time(k.lastUsedAt) : html`<span class="muted">never</span>`,
      k.revokedAt
        ? html`${statusBadge("revoked")} ${time(k.revokedAt)}`
        : html`<span class="badge badge-delivered">active</span>`,
      k.revokedAt
        ? ""
        : actionButton({
            action: `/settings/api-keys/${k.id}/revoke`,
            label: `Revoke ${k.name}`,
            csrf: session.csrfToken,
            variant: "danger",
            confirm: `Revoke the key "${k.name}"? Requests with it will be refused within seconds.`,
          }),
    ]),
    "No keys yet: create one above.",
  )}
  ${pager("/settings/api-keys", {}, options.page.next, options.isFirstPage)}
</section>`,
  });
}
