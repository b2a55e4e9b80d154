/** Rows per page of every list; a `limit` in the query may lower it, never raise it past MAX_PAGE_SIZE. */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** Where a keyset page starts: strictly after (older than) this row. */
export interface Cursor {
  at: Date;
  id: string;
}

/** Opaque cursor of the last row of a page: (time, id) in base64url JSON. */
export function encodeCursor(row: Cursor): string {
  return Buffer.from(JSON.stringify([row.at.toISOString(), row.id])).toString("base64url");
}

/** The cursor, or undefined for a value we did not produce (a stale or hand-edited link shows page one). */
export function decodeCursor(value: unknown, isValidId: (id: string) => boolean): Cursor | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > 200) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
    if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
    const [at, id] = parsed as unknown[];
    if (typeof at !== "string" || typeof id !== "string" || !isValidId(id)) return undefined;
    const date = new Date(at);
    return Number.isNaN(date.getTime()) ? undefined : { at: date, id };
  } catch {
    return undefined;
  }
}

/** The page size asked for, within 1..MAX_PAGE_SIZE; the default for anything else. */
export function pageSize(value: unknown): number {
  if (typeof value !== "string" || !/^\d{1,3}$/.test(value)) return DEFAULT_PAGE_SIZE;
  const n = Number(value);
  return n >= 1 && n <= MAX_PAGE_SIZE ? n : DEFAULT_PAGE_SIZE;
}

export interface Page<T> {
  rows: T[];
  /** The cursor of the next (older) page, or null on the last page. */
  next: string | null;
}

/**
 * A page from `size + 1` rows fetched newest first: the extra row only says whether
 * another page exists.
 */
export function toPage<T>(rows: T[], size: number, cursorOf: (row: T) => Cursor): Page<T> {
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  return { rows: page, next: rows.length > size && last ? encodeCursor(cursorOf(last)) : null };
}
