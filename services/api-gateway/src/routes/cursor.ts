import { ApiError } from "@sms/errors";
import { isId } from "@sms/ids";

/** Opaque keyset cursor: the (created_at, id) of the last row of a page. */
export function encodeCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString("base64url");
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [
      unknown,
      unknown,
    ];
    const date = new Date(String(createdAt));
    if (typeof id !== "string" || !isId("msg", id) || Number.isNaN(date.getTime()))
      throw new Error("bad cursor");
    return { createdAt: date, id };
  } catch {
    throw new ApiError("VALIDATION_ERROR", "cursor is not a next_cursor value returned by this endpoint.", {
      field: "cursor",
    });
  }
}
