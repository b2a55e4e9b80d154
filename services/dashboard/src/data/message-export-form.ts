import { EXPORT_MAX_DAYS, exportRangeProblem, type ExportRange } from "@sms/message-state";
import { parseDay } from "./message-filters";

const DAY_MS = 86_400_000;

/** The download form as typed (echoed back), the range when it parsed, and an error per field. */
export interface ParsedExportForm {
  form: Record<"since" | "until", string>;
  range: ExportRange | null;
  errors: Partial<Record<"since" | "until", string>>;
}

const text = (value: unknown) => (typeof value === "string" ? value.trim().slice(0, 20) : "");

/** The form's first values: the last seven UTC days, today included. */
export function defaultExportForm(now = new Date()): ParsedExportForm {
  const today = now.toISOString().slice(0, 10);
  const weekAgo = new Date(now.getTime() - 6 * DAY_MS).toISOString().slice(0, 10);
  return { form: { since: weekAgo, until: today }, range: null, errors: {} };
}

/** Reads the download form (UTC days, until inclusive, at most 31 days); never throws. */
export function parseExportForm(query: Record<string, unknown>): ParsedExportForm {
  const form = { since: text(query.since), until: text(query.until) };
  const errors: ParsedExportForm["errors"] = {};
  const since = parseDay(form.since);
  const lastDay = parseDay(form.until);
  if (!since) errors.since = "Enter the first day as YYYY-MM-DD.";
  if (!lastDay) errors.until = "Enter the last day as YYYY-MM-DD.";
  if (!since || !lastDay) return { form, range: null, errors };
  const range = { since, until: new Date(lastDay.getTime() + DAY_MS) };
  if (exportRangeProblem(range)) {
    errors.until =
      lastDay < since
        ? "The last day cannot be before the first."
        : `Download at most ${EXPORT_MAX_DAYS} days at a time.`;
    return { form, range: null, errors };
  }
  return { form, range, errors };
}
