import { CSRF_FIELD } from "../security/csrf";
import { html, type Html, type Renderable } from "./html";

/** A time as people read it (UTC, to the second) in a machine-readable <time>. */
export function time(value: Date | null | undefined): Html {
  if (!value) return html`<span class="muted">—</span>`;
  const iso = value.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace("T", " ")} UTC</time>`;
}

export function csrfInput(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}

/** A status as a coloured badge; the word is always there, colour is never the only cue. */
export function statusBadge(status: string): Html {
  return html`<span class="badge badge-${status.replace(/[^a-z_]/g, "")}">${status}</span>`;
}

export interface FieldOptions {
  label: string;
  name: string;
  value?: string;
  type?: string;
  error?: string | undefined;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  inputmode?: string;
  placeholder?: string;
  maxlength?: number;
}

/** A labelled input with its hint and, when there is one, its error right below it. */
export function field(options: FieldOptions): Html {
  const id = `f-${options.name}`;
  const describedBy = [options.hint && `${id}-hint`, options.error && `${id}-error`]
    .filter(Boolean)
    .join(" ");
  return html`<div class="field${options.error ? " has-error" : ""}">
    <label for="${id}"
      >${options.label}${options.required ? "" : html` <span class="optional">(optional)</span>`}</label
    >
    ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ""}
    <input
      id="${id}"
      name="${options.name}"
      type="${options.type ?? "text"}"
      value="${options.value ?? ""}"
      ${
        options.required ? html` required` : ""
      }${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ""}${
        options.inputmode ? html` inputmode="${options.inputmode}"` : ""
      }${options.placeholder ? html` placeholder="${options.placeholder}"` : ""}${
        options.maxlength ? html` maxlength="${options.maxlength}"` : ""
      }${describedBy ? html` aria-describedby="${describedBy}"` : ""}${options.error ? html` aria-invalid="true"` : ""}
    />
    ${fieldError(id, options.error)}
  </div>`;
}

export function fieldError(id: string, error: string | undefined): Html | string {
  return error
    ? html`<p class="field-error" id="${id}-error"><span aria-hidden="true">⚠ </span>${error}</p>`
    : "";
}

/** A labelled <select>; `options` are [value, label] pairs. */
export function selectField(options: {
  label: string;
  name: string;
  value: string;
  choices: readonly (readonly [string, string])[];
  error?: string | undefined;
}): Html {
  const id = `f-${options.name}`;
  return html`<div class="field${options.error ? " has-error" : ""}">
    <label for="${id}">${options.label}</label>
    <select
      id="${id}"
      name="${options.name}"
      ${options.error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""}
    >
      ${options.choices.map(
        ([value, label]) =>
          html`<option value="${value}" ${value === options.value ? html` selected` : ""}>${label}</option>`,
      )}
    </select>
    ${fieldError(id, options.error)}
  </div>`;
}

/** A POST form that is only a button (revoke, rotate, test…), with its CSRF token. */
export function actionButton(options: {
  action: string;
  label: string;
  csrf: string;
  variant?: "primary" | "secondary" | "danger";
  hidden?: Record<string, string>;
  describedBy?: string;
  /** Asked before a destructive action where scripts run (the form works without). */
  confirm?: string;
}): Html {
  return html`<form
    method="post"
    action="${options.action}"
    class="inline-form"
    ${options.confirm ? html` data-confirm="${options.confirm}"` : ""}
  >
    ${csrfInput(options.csrf)}
    ${Object.entries(options.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <button
      type="submit"
      class="button button-${options.variant ?? "secondary"}"
      ${options.describedBy ? html` aria-describedby="${options.describedBy}"` : ""}
    >
      ${options.label}
    </button>
  </form>`;
}

/** "Newest" and "Older" links of a keyset-paginated list; `query` keeps the filters. */
export function pager(
  path: string,
  query: Record<string, string>,
  next: string | null,
  isFirstPage: boolean,
): Html {
  const link = (extra: Record<string, string>) => {
    const params = new URLSearchParams({ ...query, ...extra });
    for (const [key, value] of [...params]) if (value === "") params.delete(key);
    const search = params.toString();
    return search ? `${path}?${search}` : path;
  };
  const withoutCursor = { ...query, cursor: "" };
  return html`<nav class="pager" aria-label="Pages">
    ${isFirstPage ? "" : html`<a class="button button-secondary" href="${link(withoutCursor)}">« Newest</a>`}
    ${next ? html`<a class="button button-secondary" href="${link({ cursor: next })}" rel="next">Older »</a>` : ""}
  </nav>`;
}

/**
 * A table; on narrow screens each row becomes a card of "label: value" lines (the labels
 * come from data-label), and anything still too wide scrolls inside itself, never the page.
 */
export function table(
  caption: string,
  head: readonly string[],
  rows: readonly Renderable[][],
  empty: string,
): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0">
    <table>
      <caption class="visually-hidden">
        ${caption}
      </caption>
      <thead>
        <tr>
          ${head.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) =>
            html`<tr>
              ${row.map((cell, i) => html`<td data-label="${head[i] ?? ""}">${cell}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export function notice(kind: "success" | "error" | "info", body: Renderable): Html {
  return html`<div class="notice notice-${kind}" role="${kind === "error" ? "alert" : "status"}">
    ${body}
  </div>`;
}

/** A secret shown once, selectable in full, with a copy button where scripts run. */
export function secretBox(label: string, value: string, note: string): Html {
  return html`<div class="secret">
    <p class="secret-label" id="secret-label">${label}</p>
    <div class="secret-row">
      <code class="secret-value" id="secret-value" aria-labelledby="secret-label">${value}</code>
      <button type="button" class="button button-secondary js-only" data-copy="secret-value">Copy</button>
    </div>
    <p class="hint">${note}</p>
  </div>`;
}
