import type pg from "pg";
import { newId } from "@sms/ids";
import type { PreparedMessage } from "./prepare";

export interface BatchRow {
  id: string;
  accountId: string;
  senderId: string;
  total: number;
  accepted: number;
  rejected: number;
  createdAt: Date;
}

export async function lockBalances(
  client: pg.PoolClient,
  accountIds: string[],
): Promise<Map<string, bigint>> {
  // ORDER BY id: every flush locks rows in one order, so two flushes never deadlock.
  const { rows } = await client.query<{ id: string; balance: string }>({
    name: "acceptance-lock-balances",
    text: "SELECT id, balance FROM accounts WHERE id = ANY($1::text[]) AND status = 'active' ORDER BY id FOR UPDATE",
    values: [accountIds],
  });
  return new Map(rows.map((row) => [row.id, BigInt(row.balance)]));
}

/** An OTP whose SMS is in the same acceptance: written, and older pending ones of its phone canceled, with it. */
export interface OtpRow {
  id: string;
  accountId: string;
  phone: string;
  /** HMAC of the code (never the code). */
  codeHmac: Buffer;
  length: number;
  maxAttempts: number;
  messageId: string;
  expiresAt: Date;
  createdAt: Date;
}

export interface FlushWrite {
  /** Accepted messages, in acceptance order. */
  messages: PreparedMessage[];
  /** Balance after each message's charge, aligned with `messages`. */
  balancesAfter: bigint[];
  batches: BatchRow[];
  /** In acceptance order; a later OTP for the same account and phone supersedes an earlier one. */
  otps: OtpRow[];
  /** New balance per account. */
  balances: Map<string, bigint>;
}

// Every row of a flush is written by ONE statement: data-modifying CTEs over
// unnest() arrays. The balance row stays locked from SELECT … FOR UPDATE to COMMIT,
// so round trips inside that window are what limit an account's throughput.
// Foreign keys between the CTEs hold: PostgreSQL checks them at the end of the statement.
const WRITE_FLUSH = `
WITH m AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                       $9::int[], $10::int[], $11::text[], $12::timestamptz[], $13::timestamptz[], $14::bigint[],
                       $27::text[], $28::text[])
    AS t(id, account_id, batch_id, source, to_number, sender_id, body, encoding, segment_count, credits, status,
         scheduled_at, created_at, balance_after, otp_id, body_sealed)
), batches_in AS (
  INSERT INTO batches (id, account_id, sender_id, total, accepted, rejected, created_at)
  SELECT * FROM unnest($15::text[], $16::text[], $17::text[], $18::int[], $19::int[], $20::int[], $21::timestamptz[])
), messages_in AS (
  INSERT INTO messages (id, account_id, batch_id, source, to_number, sender_id, body, encoding, segment_count,
                        credits_charged, status, status_sequence, scheduled_at, created_at, updated_at, otp_id, body_sealed)
  SELECT id, account_id, batch_id, source::"MessageSource", to_number, sender_id, body, encoding::"MessageEncoding",
         segment_count, credits, status::"MessageStatus", 1, scheduled_at, created_at, created_at, otp_id, body_sealed FROM m
), o AS (
  SELECT * FROM unnest($29::text[], $30::text[], $31::text[], $32::text[], $33::int[], $34::text[], $35::int[],
                       $36::text[], $37::timestamptz[], $38::timestamptz[])
    AS t(id, account_id, phone, code_hmac, length, status, max_attempts, message_id, expires_at, created_at)
), otps_superseded AS (
  -- The account row is locked (lockBalances), so an earlier flush's OTPs are committed and seen here;
  -- this statement's own inserts are not (one snapshot), so a new OTP is never canceled by itself.
  UPDATE otps AS old SET status = 'canceled', updated_at = now()
  FROM (SELECT DISTINCT account_id, phone FROM o) AS n
  WHERE old.account_id = n.account_id AND old.phone = n.phone AND old.status = 'pending'
), otps_in AS (
  INSERT INTO otps (id, account_id, phone, code_hmac, length, status, max_attempts, message_id, expires_at,
                    created_at, updated_at)
  SELECT id, account_id, phone, decode(code_hmac, 'hex'), length, status::"OtpStatus", max_attempts, message_id,
         expires_at, created_at, created_at FROM o
), events_in AS (
  INSERT INTO message_events (message_id, sequence, status, occurred_at)
  SELECT id, 1, status::"MessageStatus", created_at FROM m
), ledger_in AS (
  INSERT INTO credit_ledger (account_id, delta, balance_after, reason, message_id, created_at)
  SELECT account_id, -credits, balance_after, 'message_charge', id, created_at FROM m
), outbox_in AS (
  INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload, created_at)
  SELECT e.id, m.account_id, m.id, 'message.queued', 1, e.payload::jsonb, m.created_at
  FROM unnest($22::text[], $23::text[], $24::text[]) AS e(id, message_id, payload) JOIN m ON m.id = e.message_id
), dispatch_in AS (
  INSERT INTO dispatch_outbox (message_id, created_at) SELECT id, created_at FROM m WHERE status = 'queued'
)
UPDATE accounts AS a SET balance = v.balance, updated_at = now()
FROM unnest($25::text[], $26::bigint[]) AS v(id, balance) WHERE a.id = v.id`;

/** Writes an accepted flush: batches, messages, history, charges, outbox rows and balances. */
export async function writeFlush(client: pg.PoolClient, write: FlushWrite): Promise<void> {
  const { messages, batches } = write;
  const column = <T>(pick: (m: PreparedMessage) => T) => messages.map(pick);
  const queued = messages.filter((m) => m.status === "queued");
  // Named: parsed and planned once per connection instead of once per flush.
  await client.query({
    name: "acceptance-write-flush",
    text: WRITE_FLUSH,
    values: [
      column((m) => m.id),
      column((m) => m.accountId),
      column((m) => m.batchId),
      column((m) => m.source),
      column((m) => m.to),
      column((m) => m.senderId),
      column((m) => m.storedBody),
      column((m) => m.encoding),
      column((m) => m.segments),
      column((m) => m.credits),
      column((m) => m.status),
      column((m) => m.scheduledAt),
      column((m) => m.createdAt),
      write.balancesAfter.map(String),
      batches.map((b) => b.id),
      batches.map((b) => b.accountId),
      batches.map((b) => b.senderId),
      batches.map((b) => b.total),
      batches.map((b) => b.accepted),
      batches.map((b) => b.rejected),
      batches.map((b) => b.createdAt),
      queued.map(() => newId("evt")),
      queued.map((m) => m.id),
      queued.map((m) =>
        JSON.stringify({
          to: m.to,
          status: "queued",
          previous_status: null,
          sender_id: m.senderId,
          segments: m.segments,
          batch_id: m.batchId,
          otp_id: m.otpId,
        }),
      ),
      [...write.balances.keys()],
      [...write.balances.values()].map(String),
      column((m) => m.otpId),
      column((m) => m.sealedBody),
      ...otpColumns(write.otps),
    ],
  });
}

function otpColumns(otps: OtpRow[]): unknown[] {
  // Within one flush only the last OTP of an account and phone stays pending.
  const latest = new Map(otps.map((otp) => [`${otp.accountId} ${otp.phone}`, otp]));
  return [
    otps.map((o) => o.id),
    otps.map((o) => o.accountId),
    otps.map((o) => o.phone),
    otps.map((o) => o.codeHmac.toString("hex")),
    otps.map((o) => o.length),
    otps.map((o) => (latest.get(`${o.accountId} ${o.phone}`) === o ? "pending" : "canceled")),
    otps.map((o) => o.maxAttempts),
    otps.map((o) => o.messageId),
    otps.map((o) => o.expiresAt),
    otps.map((o) => o.createdAt),
  ];
}
