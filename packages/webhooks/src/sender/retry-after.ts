/**
 * Milliseconds a `Retry-After` value asks for: delta seconds or an HTTP date
 * (RFC 9110 §10.2.3); null when absent or unreadable. Capped at `maxMs` so an
 * endpoint cannot park a delivery beyond the retry schedule.
 */
export function parseRetryAfter(value: string | undefined, now: number, maxMs: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, maxMs);
  // Only an IMF-fixdate-like text counts: Date.parse also reads "-5" as a year.
  if (!/^[A-Za-z]{3},/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now), maxMs);
}
