/**
 * True when a receipt's done date carries seconds: YYMMDDhhmmss (some carriers) or ISO 8601 with
 * seconds. SMPP 3.4 appendix B dates stop at the minute; a receipt that came at 07:22:13 would
 * read 07:22:00, so for those the time recorded is when we received it (the date is kept beside).
 */
export function doneDateHasSeconds(value: string | undefined): boolean {
  if (!value) return false;
  return /^\d{12}$/.test(value) || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(value);
}
