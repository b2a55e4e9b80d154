import { ApiError } from "@sms/errors";

/** How far back a scheduled_at may lie (clock skew) before it is refused (docs/messages.md#scheduling). */
export const SCHEDULE_PAST_TOLERANCE_MS = 60_000;
/** How far ahead a message may be scheduled (docs/messages.md#scheduling). */
export const SCHEDULE_MAX_AHEAD_MS = 180 * 24 * 3600 * 1000;

// ISO 8601 in UTC: a Z or +00:00 offset is required, so a local time can't be misread.
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|\+00:?00)$/;

/**
 * The time a message is due, or null when it is due now (absent, or within the
 * past tolerance). INVALID_SCHEDULE for anything that is not ISO 8601 UTC, too
 * far in the past, or more than 180 days ahead.
 */
export function parseSchedule(
  value: string | undefined | null,
  now: Date,
  field = "scheduled_at",
): Date | null {
  if (value === undefined || value === null) return null;
  const match = ISO_UTC.exec(value);
  const date = match ? new Date(value.replace(/\+00:?00$/, "Z")) : null;
  if (
    !match ||
    !date ||
    Number.isNaN(date.getTime()) ||
    date.toISOString().slice(0, 10) !== `${match[1]}-${match[2]}-${match[3]}`
  ) {
    throw new ApiError(
      "INVALID_SCHEDULE",
      `${field} must be an ISO 8601 UTC timestamp such as 2030-01-31T09:30:00Z.`,
      { field },
    );
  }
  const delta = date.getTime() - now.getTime();
  if (delta < -SCHEDULE_PAST_TOLERANCE_MS) {
    throw new ApiError(
      "INVALID_SCHEDULE",
      `${field} is more than 60 seconds in the past; omit it to send now.`,
      { field },
    );
  }
  if (delta > SCHEDULE_MAX_AHEAD_MS) {
    throw new ApiError("INVALID_SCHEDULE", `${field} is more than 180 days ahead.`, { field });
  }
  return delta > 0 ? date : null;
}
