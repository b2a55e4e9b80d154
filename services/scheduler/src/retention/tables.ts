import type { PartitionedTable } from "@sms/db";
import { SCHEDULE_MAX_AHEAD_MS } from "@sms/message-acceptance";

/**
 * What the retention job deletes, table by table (docs/operations.md#retention). Each entry is
 * read in key order (the primary key: a bigserial, or a `<prefix>_<ULID>` id, both in creation
 * order) from a cursor, so a pass walks each table's oldest rows once and stops at the first
 * page whose last row is younger than the cutoff: it costs what it deletes, not the table.
 */
export interface RetentionTable {
  table: string;
  /** Its primary key, in creation order, and that key's SQL type. */
  key: string;
  keyType: "bigint" | "text";
  /** The time a row's age is counted from. */
  time: string;
  /** Which setting's age applies. */
  kind: RetentionKind;
  /** Rows the age alone does not release (work still to do), as SQL on `t`. */
  keepWhile?: string;
}

export type RetentionKind = "messages" | "webhooks" | "outbox" | "receipts" | "signIns" | "otps" | "ledger";

/**
 * Plain tables, deleted in pages by their key. Messages are not here: they go with their
 * history, segments and OTP, only once final (deleteFinalMessages in pass.ts), and before any table
 * whose rows they reference: none do, so the order below is free.
 */
export const RETENTION_TABLES: readonly RetentionTable[] = [
  { table: "inbound_messages", key: "id", keyType: "text", time: "received_at", kind: "messages" },
  { table: "smpp_submits", key: "id", keyType: "text", time: "created_at", kind: "messages" },
  { table: "webhook_attempts", key: "id", keyType: "bigint", time: "started_at", kind: "webhooks" },
  // SMPP receipts and inbound messages no customer bind took in a week are given up.
  { table: "smpp_receipts", key: "id", keyType: "bigint", time: "created_at", kind: "outbox" },
  { table: "smpp_inbound", key: "id", keyType: "bigint", time: "created_at", kind: "outbox" },
  { table: "dashboard_login_attempts", key: "id", keyType: "bigint", time: "at", kind: "signIns" },
  // A code someone may still type stays until it is verified, failed or past its expiry.
  {
    table: "otps",
    key: "id",
    keyType: "text",
    time: "created_at",
    kind: "otps",
    keepWhile: "t.status = 'pending' AND t.expires_at > now()",
  },
  { table: "credit_ledger", key: "id", keyType: "bigint", time: "created_at", kind: "ledger" },
];

/**
 * Tables read through an index of their time column instead of a key: rows that carry their own
 * expiry (deleted once it has passed, kind "expired") and inbound parts (no single-column key).
 */
export const INDEXED_BY_TIME_TABLES: readonly {
  table: string;
  time: string;
  kind: RetentionKind | "expired";
}[] = [
  { table: "idempotency_records", time: "expires_at", kind: "expired" },
  { table: "dashboard_sessions", time: "expires_at", kind: "expired" },
  { table: "inbound_parts", time: "received_at", kind: "outbox" },
];

const DAY_MS = 86_400_000;

/** A partitioned table's retention: the partitions kept ready ahead, and when one may go. */
export interface PartitionRetention {
  table: PartitionedTable;
  kind: RetentionKind;
  /** Days ahead of now whose partitions must exist before rows come for them. */
  aheadDays: number;
  /** SQL true while a partition past retention must stay (dropPartitionsBefore's keepWhile). */
  keepWhile?: string;
  /** Tables partitioned alike whose partition of the same range is created and dropped with it. */
  together?: readonly PartitionedTable[];
  /** SQL run in the drop's transaction (dropPartitionsBefore's alongside). */
  alongside?: string;
}

/**
 * Tables partitioned by time (docs/decisions.md#partitions): a pass keeps the partitions ahead
 * ready and drops those wholly past retention, so rows live between N days and N days plus a
 * partition's length. A partition with work left in it (`keepWhile`, asked with it locked) is
 * kept until the work is done.
 */
export const PARTITION_RETENTION: readonly PartitionRetention[] = [
  // A week of a message's tables goes whole, once no message of it is open (the expiry sweeps
  // make every one final within its validity plus the receipt grace); their OTP rows with them.
  // Weeks are made ahead as far as a message may be scheduled: its id is the time it is due.
  {
    table: "messages",
    kind: "messages",
    aheadDays: SCHEDULE_MAX_AHEAD_MS / DAY_MS + 7,
    together: ["message_events", "message_segments"],
    // One probe of each partial index of open messages, never a read of the week.
    keepWhile:
      "EXISTS (SELECT 1 FROM {partition} WHERE status IN ('scheduled', 'queued'))" +
      " OR EXISTS (SELECT 1 FROM {partition} WHERE status = 'sent')",
    alongside: "DELETE FROM otps WHERE ({from}::text IS NULL OR message_id >= {from}) AND message_id < {to}",
  },
  { table: "carrier_receipts", kind: "receipts", aheadDays: 7 },
  // A delivery still pending is retried until the endpoint is disabled; never cut it short.
  {
    table: "webhook_deliveries",
    kind: "webhooks",
    aheadDays: 7,
    keepWhile: "EXISTS (SELECT 1 FROM {partition} WHERE status = 'pending')",
  },
  // After the deliveries (same pass): an event the relay has not published yet is work, however
  // old, and one with a delivery is that delivery's body (docs/webhooks.md#storage).
  {
    table: "outbox_events",
    kind: "outbox",
    aheadDays: 7,
    keepWhile:
      // By the day's id range: outbox_pending is the relay's backlog, small, where a join to the
      // day would read the day (a million rows: 80 ms).
      "EXISTS (SELECT 1 FROM outbox_pending p WHERE ({from}::text IS NULL OR p.event_id >= {from}) AND p.event_id < {to})" +
      " OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE ({from}::text IS NULL OR d.event_id >= {from}) AND d.event_id < {to})",
  },
];
