import type pg from "pg";
import { newId } from "@sms/ids";
import { MESSAGE_COUNT_DELTAS_OF_ACCEPTED } from "@sms/message-state";
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

/** An account's row as an acceptance locked it: what it may still be charged today. */
export interface LockedAccount {
  balance: bigint;
  dailyQuota: number;
  /** Messages accepted today (UTC) before this acceptance (docs/decisions.md#daily-quota). */
  usedToday: number;
}

// What the account's row says of today (UTC): its count is today's only when quota_day is today.
const USED_TODAY = `CASE WHEN quota_day = (now() AT TIME ZONE 'UTC')::date THEN quota_used ELSE 0 END`;

/** Locks the active accounts' rows (FOR NO KEY UPDATE, in id order) and reads their balance and quota. */
export async function lockAccounts(
  client: pg.PoolClient,
  accountIds: string[],
): Promise<Map<string, LockedAccount>> {
  // ORDER BY id: every flush locks rows in one order, so two flushes never deadlock.
  const { rows } = await client.query<{ id: string; balance: string; daily_quota: number; used: number }>({
    name: "acceptance-lock-balances",
    text: `SELECT id, balance, daily_quota, ${USED_TODAY} AS used FROM accounts
           WHERE id = ANY($1::text[]) AND status = 'active' ORDER BY id FOR NO KEY UPDATE`,
    values: [accountIds],
  });
  return new Map(
    rows.map((row) => [
      row.id,
      { balance: BigInt(row.balance), dailyQuota: row.daily_quota, usedToday: row.used },
    ]),
  );
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

/** The SMPP submit record of a message accepted from one submit_sm (what its receipts need). */
export interface SmppSubmitRow {
  /** The accepted message, whose id is also the id returned in submit_sm_resp. */
  messageId: string;
  registeredDelivery: number;
  sourceAddr: string;
  destinationAddr: string;
}

export interface FlushWrite {
  /** Accepted messages, in acceptance order. */
  messages: PreparedMessage[];
  batches: BatchRow[];
  /** In acceptance order; a later OTP for the same account and phone supersedes an earlier one. */
  otps: OtpRow[];
  smppSubmits: SmppSubmitRow[];
}

// Every row of a flush is written by ONE statement: data-modifying CTEs over unnest()
// arrays. Foreign keys between the CTEs hold: PostgreSQL checks them at the end of the
// statement. `charged` (the accounts whose balance the statement sets, with their new
// balance) and `m` (the messages) are defined by the two heads below.
const WRITE_ROWS = `
batches_in AS (
  INSERT INTO batches (id, account_id, sender_id, total, accepted, rejected, created_at)
  SELECT * FROM unnest($15::text[], $16::text[], $17::text[], $18::int[], $19::int[], $20::int[], $21::timestamptz[])
    AS b(id, account_id, sender_id, total, accepted, rejected, created_at)
  WHERE b.account_id IN (SELECT id FROM charged)
), messages_in AS (
  INSERT INTO messages (id, account_id, batch_id, source, to_number, sender_id, body, encoding, segment_count,
                        credits_charged, status, status_sequence, scheduled_at, created_at, updated_at, otp_id, body_sealed,
                        priority, client_ref, expires_at)
  SELECT id, account_id, batch_id, source::"MessageSource", to_number, sender_id, body, encoding::"MessageEncoding",
         segment_count, credits, status::"MessageStatus", 1, scheduled_at, created_at, created_at, otp_id, body_sealed,
         priority::"MessagePriority", client_ref, expires_at FROM m
), o AS (
  SELECT * FROM unnest($29::text[], $30::text[], $31::text[], $32::text[], $33::int[], $34::text[], $35::int[],
                       $36::text[], $37::timestamptz[], $38::timestamptz[])
    AS t(id, account_id, phone, code_hmac, length, status, max_attempts, message_id, expires_at, created_at)
), otps_superseded AS (
  -- Only the two-statement flush writes OTPs: the account row was locked by an earlier statement of its
  -- transaction, so an earlier flush's OTPs are committed and seen here; this statement's own inserts
  -- are not (one snapshot), so a new OTP is never canceled by itself.
  UPDATE otps AS old SET status = 'canceled', updated_at = now()
  FROM (SELECT DISTINCT account_id, phone FROM o) AS n
  WHERE old.account_id = n.account_id AND old.phone = n.phone AND old.status = 'pending'
), otps_in AS (
  INSERT INTO otps (id, account_id, phone, code_hmac, length, status, max_attempts, message_id, expires_at,
                    created_at, updated_at)
  SELECT id, account_id, phone, decode(code_hmac, 'hex'), length, status::"OtpStatus", max_attempts, message_id,
         expires_at, created_at, created_at FROM o
), events_in AS (
  INSERT INTO message_events (message_id, sequence, status, occurred_at, event_id)
  SELECT id, 1, status::"MessageStatus", created_at, event_id FROM m
), counts_in AS (
  ${MESSAGE_COUNT_DELTAS_OF_ACCEPTED}
), ledger_in AS (
  -- One entry per account and statement, however many messages it charged: a row per message was
  -- the ledger's whole size (docs/decisions.md#ledger-per-statement). The message is named when it is one.
  INSERT INTO credit_ledger (account_id, delta, balance_after, reason, message_id, message_count, created_at)
  SELECT m.account_id, -sum(m.credits), charged.balance, 'message_charge', CASE WHEN count(*) = 1 THEN min(m.id) END,
         count(*), max(m.created_at)
  FROM m JOIN charged ON charged.id = m.account_id
  GROUP BY m.account_id, charged.balance
), outbox_in AS (
  -- A queued message's message.queued event is its first history row (event_id above), queued
  -- for the relay here (docs/decisions.md#status-events); a high message's ahead of the backlog, a
  -- bulk message's behind the other classes' (docs/webhooks.md#relay-order).
  INSERT INTO outbox_pending (event_id, message_id, sequence, created_at, high, bulk)
  SELECT event_id, id, 1, created_at, priority = 'high', priority = 'bulk' FROM m WHERE event_id IS NOT NULL ORDER BY created_at, id
), dispatch_in AS (
  INSERT INTO dispatch_outbox (message_id, created_at) SELECT id, created_at FROM m WHERE status = 'queued'
), submits_in AS (
  INSERT INTO smpp_submits (id, account_id, message_id, registered_delivery, source_addr, destination_addr)
  SELECT s.message_id, m.account_id, s.message_id, s.registered_delivery, s.source_addr, s.destination_addr
  FROM unnest($39::text[], $40::smallint[], $41::text[], $42::text[])
    AS s(message_id, registered_delivery, source_addr, destination_addr) JOIN m ON m.id = s.message_id
)`;

const MESSAGE_COLUMNS = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
    $8::text[], $9::int[], $10::int[], $11::text[], $12::timestamptz[], $13::timestamptz[], $27::text[],
    $28::text[], $23::text[], $14::text[], $24::timestamptz[], $22::text[])
  AS t(id, account_id, batch_id, source, to_number, sender_id, body, encoding, segment_count, credits, status,
       scheduled_at, created_at, otp_id, body_sealed, priority, client_ref, expires_at, event_id)`;

// Inside a transaction that locked the accounts (lockAccounts) and decided each item: $25/$26
// each account's new balance, $43 its count of today's messages after these (null where they are
// not counted: a keyword auto-reply, which the platform sends).
const WRITE_DECIDED = `
WITH charged AS (
  UPDATE accounts AS a SET balance = v.balance, updated_at = now(),
    quota_day = CASE WHEN v.used IS NULL THEN a.quota_day ELSE (now() AT TIME ZONE 'UTC')::date END,
    quota_used = COALESCE(v.used, a.quota_used)
  FROM unnest($25::text[], $26::bigint[], $43::int[]) AS v(id, balance, used) WHERE a.id = v.id
  RETURNING a.id, a.balance
), m AS (
  SELECT * FROM ${MESSAGE_COLUMNS}
), ${WRITE_ROWS}
SELECT id FROM charged`;

// Alone, in autocommit: lock, check, charge and write in one round trip and one transaction,
// so an account's row is locked only for this statement and its commit. $25/$26/$44 are each
// account's total charge and message count; an account is charged only if its balance covers
// ALL of its messages here and its daily quota has room for all of them (counted in the same
// row, docs/decisions.md#daily-quota). Accounts left out (short of credits or quota, not active)
// are in no row of the result and write nothing: their items are decided one by one by the
// transaction path. The row lock re-reads the newest committed row after waiting for it; ORDER BY
// id locks rows in one order, so flushes never deadlock. NO KEY UPDATE, not UPDATE: the
// foreign-key checks of every other service's inserts referencing the account (KEY SHARE) neither
// wait for an acceptance nor make it wait.
// A message marked in $43 (a single send's, docs/decisions.md#opt-out) is checked against its
// account's suppression list here, one primary-key probe, instead of by a lookup of its own
// before the flush: a suppressed one is written nowhere, charged nothing and comes back as a
// `suppressed` row, whether or not its account's balance covered the rest.
const WRITE_IF_COVERED = `
WITH suppressed AS MATERIALIZED (
  SELECT t.id, t.account_id, t.credits
  FROM unnest($1::text[], $2::text[], $5::text[], $10::int[], $43::bool[]) AS t(id, account_id, to_number, credits, checked)
  WHERE t.checked AND EXISTS (SELECT 1 FROM suppressions AS s WHERE s.account_id = t.account_id AND s.number = t.to_number)
), need AS (
  SELECT t.id, t.total - COALESCE(x.total, 0) AS total, t.messages - COALESCE(x.messages, 0) AS messages
  FROM unnest($25::text[], $26::bigint[], $44::int[]) AS t(id, total, messages)
  LEFT JOIN (SELECT account_id, sum(credits) AS total, count(*) AS messages FROM suppressed GROUP BY account_id) AS x
    ON x.account_id = t.id
), locked AS MATERIALIZED (
  SELECT id, balance, daily_quota, ${USED_TODAY} AS used FROM accounts
  WHERE id = ANY($25::text[]) AND status = 'active' ORDER BY id FOR NO KEY UPDATE
), charged AS (
  UPDATE accounts AS a SET balance = l.balance - n.total, updated_at = now(),
    quota_day = (now() AT TIME ZONE 'UTC')::date, quota_used = l.used + n.messages
  FROM locked AS l JOIN need AS n ON n.id = l.id
  WHERE a.id = l.id AND l.balance >= n.total AND l.used + n.messages <= l.daily_quota
  RETURNING a.id, a.balance
), m AS (
  SELECT t.* FROM ${MESSAGE_COLUMNS} JOIN charged AS c ON c.id = t.account_id
  WHERE t.id NOT IN (SELECT id FROM suppressed)
), ${WRITE_ROWS}
SELECT id, false AS suppressed FROM charged
UNION ALL
SELECT id, true FROM suppressed`;

/**
 * Writes a flush whose items were decided under lockAccounts: batches, messages, history,
 * charges, outbox rows, OTPs, SMPP submit records, balances and the day's counts.
 * @param accounts per account its new balance, and its count of today's messages after these
 *   (null: not counted against the quota)
 */
export async function writeDecided(
  client: pg.PoolClient,
  write: FlushWrite,
  accounts: Map<string, { balance: bigint; usedToday: number | null }>,
): Promise<void> {
  const decided = [...accounts.values()];
  // Named: parsed and planned once per connection instead of once per flush.
  await client.query({
    name: "acceptance-write-decided",
    text: WRITE_DECIDED,
    values: [
      ...flushValues(
        write,
        [...accounts.keys()],
        decided.map((a) => a.balance),
      ),
      decided.map((a) => a.usedToday),
    ],
  });
}

/** What writeIfCovered did. */
export interface CoveredWrite {
  /** The accounts charged: every message of theirs not suppressed was written. */
  charged: Set<string>;
  /** The messages of `optOutChecked` whose number is on their account's suppression list: written nowhere. */
  suppressed: Set<string>;
}

/**
 * Charges, counts against the day's quota and writes, in one autocommit statement, the messages
 * of each account whose balance and quota cover them all (OTPs never come this way: see otps_superseded), leaving out the messages of
 * `optOutChecked` whose number is suppressed. Nothing of the accounts not charged was written.
 */
export async function writeIfCovered(
  pool: pg.Pool,
  write: Omit<FlushWrite, "otps">,
  optOutChecked: ReadonlySet<string> = new Set(),
): Promise<CoveredWrite> {
  const totals = new Map<string, { credits: bigint; messages: number }>();
  for (const message of write.messages) {
    const total = totals.get(message.accountId) ?? { credits: 0n, messages: 0 };
    total.credits += BigInt(message.credits);
    total.messages += 1;
    totals.set(message.accountId, total);
  }
  const perAccount = [...totals.values()];
  const { rows } = await pool.query<{ id: string; suppressed: boolean }>({
    name: "acceptance-write-if-covered",
    text: WRITE_IF_COVERED,
    values: [
      ...flushValues(
        { ...write, otps: [] },
        [...totals.keys()],
        perAccount.map((t) => t.credits),
      ),
      write.messages.map((m) => optOutChecked.has(m.id)),
      perAccount.map((t) => t.messages),
    ],
  });
  const result: CoveredWrite = { charged: new Set(), suppressed: new Set() };
  for (const row of rows) (row.suppressed ? result.suppressed : result.charged).add(row.id);
  return result;
}

function flushValues(write: FlushWrite, accountIds: string[], perAccountBalance: bigint[]): unknown[] {
  const { messages, batches } = write;
  const column = <T>(pick: (m: PreparedMessage) => T) => messages.map(pick);
  return [
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
    column((m) => m.clientRef ?? null),
    batches.map((b) => b.id),
    batches.map((b) => b.accountId),
    batches.map((b) => b.senderId),
    batches.map((b) => b.total),
    batches.map((b) => b.accepted),
    batches.map((b) => b.rejected),
    batches.map((b) => b.createdAt),
    // A queued message's message.queued event id (its first history row's); none for a scheduled one.
    column((m) => (m.status === "queued" ? newId("evt") : null)),
    column((m) => m.priority),
    column((m) => m.expiresAt),
    accountIds,
    perAccountBalance.map(String),
    column((m) => m.otpId),
    column((m) => m.sealedBody),
    ...otpColumns(write.otps),
    write.smppSubmits.map((s) => s.messageId),
    write.smppSubmits.map((s) => s.registeredDelivery),
    write.smppSubmits.map((s) => s.sourceAddr),
    write.smppSubmits.map((s) => s.destinationAddr),
  ];
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
