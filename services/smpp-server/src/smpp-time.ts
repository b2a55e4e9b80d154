/**
 * SMPP 3.4 §7.1 time: absolute `YYMMDDhhmmsstnnp` (p `+`/`-`: the time is nn quarter hours
 * ahead of/behind UTC) or relative `YYMMDDhhmmss000R` (from now). Returns the instant, null for
 * an empty field, or undefined for anything malformed.
 */
export function parseSmppTime(value: string, now: Date = new Date()): Date | null | undefined {
  if (value === "") return null;
  const match = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d)(\d{2})([+\-R])$/.exec(value);
  if (!match) return undefined;
  const [yy, mo, dd, hh, mi, ss, tenths, nn] = match.slice(1, 9).map(Number) as number[];
  const sign = match[9];
  if (sign === "R") {
    const at = new Date(now.getTime());
    at.setUTCFullYear(at.getUTCFullYear() + yy!, at.getUTCMonth() + mo!, at.getUTCDate() + dd!);
    at.setUTCHours(at.getUTCHours() + hh!, at.getUTCMinutes() + mi!, at.getUTCSeconds() + ss!);
    return at;
  }
  if (mo! < 1 || mo! > 12 || dd! < 1 || dd! > 31 || hh! > 23 || mi! > 59 || ss! > 59 || nn! > 48)
    return undefined;
  const local = Date.UTC(2000 + yy!, mo! - 1, dd!, hh!, mi!, ss!, tenths! * 100);
  const at = new Date(local - (sign === "+" ? 1 : -1) * nn! * 15 * 60_000);
  // Date.UTC rolls 31 April over into May: a date that does not exist is malformed.
  return new Date(local).getUTCDate() === dd! ? at : undefined;
}
