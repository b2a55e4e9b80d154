import type { Queryable } from "@sms/db";
import { idBoundAt } from "@sms/ids";
import { csvRecord, inertText } from "./csv";

/** The longest range one export may ask for (docs/api.md#export-messages). */
export const EXPORT_MAX_DAYS = 31;

/** The header row, in column order. */
const EXPORT_COLUMNS = [
  "id",
  "created_at",
  "to",
  "sender_id",
  "status",
  "segments",
  "credits",
  "error_code",
  "client_ref",
  "batch_id",
  "sent_at",
  "delivered_at",
  "failed_at",
  "body",
] as const;

/** Messages created at or after `since` and before `until`. */
export interface ExportRange {
  since: Date;
  until: Date;
}

/** Why a range cannot be exported, or null when it can. */
export function exportRangeProblem(range: ExportRange): string | null {
  const ms = range.until.getTime() - range.since.getTime();
  if (!(ms > 0)) return "until must be later than since.";
  if (ms > EXPORT_MAX_DAYS * 86_400_000) return `The range may span at most ${EXPORT_MAX_DAYS} days.`;
  return null;
}

/** A file name for the range: messages_20261101T000000Z_20261201T000000Z.csv. */
export function exportFileName(range: ExportRange): string {
  const stamp = (date: Date) =>
    date
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z")
      .replace(/[-:]/g, "");
  return `messages_${stamp(range.since)}_${stamp(range.until)}.csv`;
}

/** Where the CSV goes: an HTTP response or any Writable (write returns false when full, then "drain"). */
export interface ExportSink {
  write(chunk: string): boolean;
  on(event: "drain" | "close" | "error", listener: () => void): unknown;
  off(event: "drain" | "close" | "error", listener: () => void): unknown;
  readonly destroyed: boolean;
}

interface ExportRow {
  id: string;
  created_at: Date;
  to_number: string;
  sender_id: string;
  status: string;
  segment_count: number;
  credits_charged: number;
  error_code: string | null;
  client_ref: string | null;
  batch_id: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  body: string;
}

// Keyset pages in (created_at, id) order through the (account_id, created_at, id) index: each
// page costs its own rows, however deep into the range it is. body is the stored text: an OTP
// message stores a placeholder, never its code (docs/otp.md#the-sms); body_sealed is not read.
// $7, the id bound of the range's start, leaves out the weeks before it: a message's id time
// (when it is due) is never before its creation (docs/decisions.md#partitions). Unnamed, so the
// plan is made for that bound.
const PAGE = `
SELECT id, created_at, to_number, sender_id, status::text AS status, segment_count, credits_charged,
       error_code, client_ref, batch_id, sent_at, delivered_at, failed_at, body
FROM messages
WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 AND (created_at, id) > ($4, $5) AND id >= $7
ORDER BY created_at, id
LIMIT $6`;

const iso = (date: Date | null) => (date ? date.toISOString() : "");

function toRecord(row: ExportRow): string {
  return csvRecord([
    row.id,
    iso(row.created_at),
    row.to_number, // E.164, validated at acceptance: "+" and digits, which no spreadsheet runs
    inertText(row.sender_id),
    row.status,
    String(row.segment_count),
    String(row.credits_charged),
    inertText(row.error_code ?? ""),
    inertText(row.client_ref ?? ""),
    row.batch_id ?? "",
    iso(row.sent_at),
    iso(row.delivered_at),
    iso(row.failed_at),
    inertText(row.body),
  ]);
}

/** Resolves true once a full sink has drained, false if it goes away first. */
function drained(sink: ExportSink): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (ok: boolean) => () => {
      sink.off("drain", onDrain);
      sink.off("close", onGone);
      sink.off("error", onGone);
      resolve(ok);
    };
    const onDrain = settle(true);
    const onGone = settle(false);
    sink.on("drain", onDrain);
    sink.on("close", onGone);
    sink.on("error", onGone);
  });
}

/** Hands `chunk` to the sink (which takes it even when full) and waits while it is full; false once it is gone. */
async function write(sink: ExportSink, chunk: string): Promise<boolean> {
  if (sink.destroyed) return false;
  return sink.write(chunk) || drained(sink);
}

/**
 * Streams one account's messages created in `range` to `sink` as CSV (header first, oldest
 * first), a page of `pageSize` rows at a time: the next page is read only once the sink has
 * taken the last one, so memory stays at one page whatever the range. Stops early, without an
 * error, when the sink goes away (the client hung up). Returns the rows written.
 */
export async function writeMessageExport(
  db: Queryable,
  accountId: string,
  range: ExportRange,
  sink: ExportSink,
  options: { pageSize?: number } = {},
): Promise<number> {
  const pageSize = options.pageSize ?? 1000;
  if (!(await write(sink, csvRecord(EXPORT_COLUMNS)))) return 0;
  let after: { createdAt: Date; id: string } = { createdAt: range.since, id: "" };
  let written = 0;
  for (;;) {
    const { rows } = await db.query<ExportRow>(PAGE, [
      accountId,
      range.since,
      range.until,
      after.createdAt,
      after.id,
      pageSize,
      idBoundAt("msg", range.since.getTime()),
    ]);
    if (rows.length === 0 || sink.destroyed) return written;
    const more = await write(sink, rows.map(toRecord).join(""));
    written += rows.length;
    if (!more || rows.length < pageSize) return written;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.created_at, id: last.id };
  }
}
