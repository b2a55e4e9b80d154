import { isId } from "@sms/ids";

export const MESSAGE_STATUSES = ["scheduled", "queued", "sent", "delivered", "failed", "canceled"] as const;
export type MessageStatusFilter = (typeof MESSAGE_STATUSES)[number];

export interface MessageFilters {
  to?: string;
  status?: MessageStatusFilter;
  /** Created at or after 00:00 UTC of this day. */
  from?: Date;
  /** Created before the end of this day (UTC). */
  until?: Date;
  batchId?: string;
}

/** The form as typed (echoed back), the filters that parsed, and an error per field that did not. */
export interface ParsedFilters {
  form: Record<"to" | "status" | "from" | "until" | "batch", string>;
  filters: MessageFilters;
  errors: Partial<Record<"to" | "status" | "from" | "until" | "batch", string>>;
}

const text = (value: unknown) => (typeof value === "string" ? value.trim().slice(0, 100) : "");
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A YYYY-MM-DD day as its 00:00 UTC, or undefined when it is not a real day. */

export function parseDay(value: string): Date | undefined {
  if (!DAY.test(value)) return undefined;
  const date = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? undefined : date;
}

/** Reads the messages search form from a query string; never throws. */
export function parseMessageFilters(query: Record<string, unknown>): ParsedFilters {
  const form = {
    to: text(query.to),
    status: text(query.status),
    from: text(query.from),
    until: text(query.until),
    batch: text(query.batch),
  };
  const filters: MessageFilters = {};
  const errors: ParsedFilters["errors"] = {};
  if (form.to) {
    // Numbers are stored in E.164; people paste them with spaces, dashes and brackets.
    const digits = form.to.replace(/[\s().-]/g, "");
    if (/^\+[1-9]\d{5,14}$/.test(digits)) filters.to = digits;
    else errors.to = "Enter the full number with country code, e.g. +447700900123.";
  }
  if (form.status) {
    if ((MESSAGE_STATUSES as readonly string[]).includes(form.status))
      filters.status = form.status as MessageStatusFilter;
    else errors.status = "Choose a status from the list.";
  }
  if (form.from) {
    const from = parseDay(form.from);
    if (from) filters.from = from;
    else errors.from = "Enter a date as YYYY-MM-DD.";
  }
  if (form.until) {
    const until = parseDay(form.until);
    if (until) filters.until = new Date(until.getTime() + 24 * 3600_000);
    else errors.until = "Enter a date as YYYY-MM-DD.";
  }
  if (filters.from && filters.until && filters.until <= filters.from)
    errors.until = "The end date must be on or after the start date.";
  if (form.batch) {
    if (isId("bat", form.batch)) filters.batchId = form.batch;
    else errors.batch = "A batch id looks like bat_01J…";
  }
  return { form, filters, errors };
}
