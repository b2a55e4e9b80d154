/** Markup that is already safe: produced by `html` or deliberately trusted (`raw`). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

export type Renderable = Html | string | number | bigint | boolean | null | undefined | Renderable[];

function render(value: Renderable): string {
  if (value === null || value === undefined || value === false || value === true) return "";
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/**
 * Tagged template that escapes every interpolated value unless it is Html: the only way
 * views build markup, so customer data (a message text, a webhook's answer) never becomes markup.
 */
export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Trusts `markup` as is: only for strings built here, never for data. */
export function raw(markup: string): Html {
  return new Html(markup);
}
