const SECONDS_PER_DAY = 86_400;

/** The UTC day of an epoch second as "yyyymmdd", the suffix of the daily quota key. */
export function utcDayKey(epochSeconds: number): string {
  const date = new Date(Math.floor(epochSeconds) * 1000);
  const yyyy = String(date.getUTCFullYear()).padStart(4, "0");
  const mm = String(date.getUTCMonth() + 1).padStart(2, "0");
  const dd = String(date.getUTCDate()).padStart(2, "0");
  return `${yyyy}${mm}${dd}`;
}

/** Whole seconds from an epoch second to the next UTC midnight: 1 to 86400. */
export function secondsUntilUtcMidnight(epochSeconds: number): number {
  const now = Math.floor(epochSeconds);
  return (Math.floor(now / SECONDS_PER_DAY) + 1) * SECONDS_PER_DAY - now;
}
