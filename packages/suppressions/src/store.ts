import type { Queryable } from "@sms/db";
import { ApiError } from "@sms/errors";

export type SuppressionSource = "keyword" | "api" | "admin";

/** One number on an account's suppression list. */
export interface Suppression {
  number: string;
  source: SuppressionSource;
  /** The account's number that received the STOP; null when added another way. */
  replyNumber: string | null;
  createdAt: Date;
}

interface Row {
  number: string;
  source: SuppressionSource;
  reply_number: string | null;
  created_at: Date;
}

const toSuppression = (row: Row): Suppression => ({
  number: row.number,
  source: row.source,
  replyNumber: row.reply_number,
  createdAt: row.created_at,
});

/**
 * Puts `number` (E.164) on the account's list. A number already there keeps its first
 * record (when and how it opted out first is what an audit asks); `added` says which.
 */
export async function addSuppression(
  db: Queryable,
  input: { accountId: string; number: string; source: SuppressionSource; replyNumber?: string | null },
): Promise<{ added: boolean; suppression: Suppression }> {
  const inserted = await db.query<Row>(
    `INSERT INTO suppressions (account_id, number, source, reply_number)
     VALUES ($1, $2, $3::"SuppressionSource", $4)
     ON CONFLICT (account_id, number) DO NOTHING
     RETURNING number, source::text AS source, reply_number, created_at`,
    [input.accountId, input.number, input.source, input.replyNumber ?? null],
  );
  if (inserted.rows[0]) return { added: true, suppression: toSuppression(inserted.rows[0]) };
  const existing = await getSuppression(db, input.accountId, input.number);
  // Removed between the two statements: add it again (the caller asked for it to be there).
  return existing ? { added: false, suppression: existing } : addSuppression(db, input);
}

/** Takes `number` off the account's list; false when it was not there. */
export async function removeSuppression(db: Queryable, accountId: string, number: string): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM suppressions WHERE account_id = $1 AND number = $2", [
    accountId,
    number,
  ]);
  return (rowCount ?? 0) > 0;
}

export async function getSuppression(
  db: Queryable,
  accountId: string,
  number: string,
): Promise<Suppression | null> {
  const { rows } = await db.query<Row>(
    `SELECT number, source::text AS source, reply_number, created_at FROM suppressions
     WHERE account_id = $1 AND number = $2`,
    [accountId, number],
  );
  return rows[0] ? toSuppression(rows[0]) : null;
}

/** One page of the account's list, newest first; `nextCursor` continues it, null at the end. */
export async function listSuppressions(
  db: Queryable,
  accountId: string,
  page: { limit: number; cursor?: string },
): Promise<{ data: Suppression[]; nextCursor: string | null }> {
  const after = page.cursor ? decodeSuppressionCursor(page.cursor) : null;
  const { rows } = await db.query<Row>(
    `SELECT number, source::text AS source, reply_number, created_at FROM suppressions
     WHERE account_id = $1
       AND ($2::timestamptz IS NULL OR (created_at, number) < ($2::timestamptz, $3::text))
     ORDER BY created_at DESC, number DESC
     LIMIT $4`,
    [accountId, after?.createdAt ?? null, after?.number ?? null, page.limit + 1],
  );
  const data = rows.slice(0, page.limit).map(toSuppression);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > page.limit && last ? encodeCursor(last) : null };
}

function encodeCursor(row: Suppression): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.number])).toString("base64url");
}

function decodeSuppressionCursor(cursor: string): { createdAt: Date; number: string } {
  try {
    const [createdAt, number] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    const date = new Date(String(createdAt));
    if (typeof number !== "string" || !number.startsWith("+") || Number.isNaN(date.getTime()))
      throw new Error("bad cursor");
    return { createdAt: date, number };
  } catch {
    throw new ApiError("VALIDATION_ERROR", "cursor is not a next_cursor value returned by this endpoint.", {
      field: "cursor",
    });
  }
}
