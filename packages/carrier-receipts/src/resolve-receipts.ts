import type pg from "pg";
import { idBoundAt, idRange } from "@sms/ids";
import {
  applyTransitions,
  dueByIdBound,
  VALIDITY_MAX_SECONDS,
  type TransitionInput,
} from "@sms/message-state";
import { isFinalReceiptState, type ReceiptState } from "@sms/smpp";
import { describeReceiptFailure, isFailedReceiptState } from "./error-codes";

/** What a receipt did, as carrier_receipts.outcome records it. */
export type ReceiptOutcome = "applied" | "ignored" | "unmatched";

/** A receipt's effect before it is recorded. */
export interface Resolution {
  outcome: ReceiptOutcome;
  messageId?: string;
  seq?: number;
  /** The message transition it made, if any. */
  transition?: { to: "delivered" | "failed"; sequence: number };
}

/** The parts of a receipt that decide its effect. */
export interface ReceiptFacts {
  carrierId: string;
  /** The id as the receipt quoted it: matched by its receipt key (receiptKeyOf), nothing else. */
  quotedId: string;
  state: ReceiptState;
  /** The carrier's `err:` value. */
  errorCode?: string | null;
  /** The time to record (ours, or the carrier's when it has seconds); clamped to [submitted_at, now]. @defaultValue now */
  doneAt?: Date | null;
  /** The receipt's done date as the carrier wrote it, kept beside done_at. */
  carrierDoneAt?: Date | null;
  /** When it was received: a segment whose submit started later cannot be its own. @defaultValue now */
  receivedAt?: Date | null;
  /**
   * True once its own submit response must have been recorded (the sweep): a receipt that
   * finds only a final segment is then a duplicate (ignored). Before that it stays unmatched:
   * the carrier may have reused the id for a submit whose response is not recorded yet.
   */
  settleDuplicates?: boolean;
}

// Per receipt, the segments of its carrier with its key, submitted within the carrier's window
// and put on the wire before the receipt came: the most recent one still awaiting its receipt,
// else the most recent final one (carriers reuse ids; docs/decisions.md#delivery-truth).
// $5 is the smallest message id any of them can have (lowestMessageId), $6 is above every message
// due by now (a segment is only written for a message due): message_segments is partitioned by
// the week of the message id, and the bounds let the plan read only the weeks the receipts'
// segments can be in. Sent unnamed, so the plan is made for those bounds. One LATERAL probe of
// (carrier_id, receipt_key) per receipt, not a join: planned as a join on a week without
// statistics (a new one, or autovacuum behind), the whole week was read and hashed (1.6 s of
// PostgreSQL per 20,000 receipts in bench:pipeline against 0.5 s probing).
const FIND_SEGMENTS = `
SELECT t.idx, s.message_id, s.seq, s.final
FROM unnest($1::int[], $2::text[], $3::text[], $4::timestamptz[]) AS t(idx, carrier_id, quoted, received_at)
LEFT JOIN carriers AS c ON c.id = t.carrier_id
CROSS JOIN LATERAL (
  SELECT s.message_id, s.seq, s.status IN ('delivered', 'failed') AS final
  FROM message_segments AS s
  WHERE s.carrier_id = t.carrier_id AND s.receipt_key = receipt_key_of(t.quoted)
    AND s.message_id >= $5 AND s.message_id < $6
    AND s.status IN ('submitted', 'delivered', 'failed')
    AND COALESCE(s.submit_started_at, '-infinity') <= COALESCE(t.received_at, now())
    AND COALESCE(s.submitted_at, now())
        > COALESCE(t.received_at, now()) - make_interval(hours => COALESCE(c.receipt_window_hours, 72))
  ORDER BY (s.status IN ('delivered', 'failed')) ASC, s.submitted_at DESC NULLS LAST
  LIMIT 1
) AS s`;

// Locked (in id order, as every batch does) before any segment is touched: receipts
// for other segments of the same messages, in other transactions, queue here, so each
// counts the delivered segments after the previous one committed and exactly one of
// them sees "all delivered" (docs/messages.md#receipts).
const LOCK_MESSAGES = `
SELECT id, status, segment_count FROM messages WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`;

// The status guard makes a duplicate that raced past the lookup change nothing. The done
// time is ours (when the receipt came) unless the carrier's has seconds, kept within
// [submitted_at, now()]; the carrier's done date is kept beside it. $7 and $8, the smallest and
// the largest message id, leave out the other weeks: a range, not `= ANY($1)`, which beside the
// join the planner takes as each probe's index condition, sorting the list again for every row.
const FINISH_SEGMENTS = `
UPDATE message_segments AS s SET
  status = t.status::"SegmentStatus",
  error_code = t.error_code,
  done_at = GREATEST(LEAST(t.done_at, now()), s.submitted_at),
  carrier_done_at = t.carrier_done_at
FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[])
  AS t(message_id, seq, status, error_code, done_at, carrier_done_at)
WHERE s.message_id = t.message_id AND s.message_id BETWEEN $7 AND $8 AND s.seq = t.seq
  AND s.status NOT IN ('delivered', 'failed')
RETURNING s.message_id, s.seq, s.done_at`;

const COUNT_DELIVERED = `
SELECT message_id, count(*)::int AS delivered FROM message_segments
WHERE message_id = ANY($1::text[]) AND status = 'delivered' GROUP BY message_id`;

interface Claim {
  index: number;
  messageId: string;
  seq: number;
  failure?: ReturnType<typeof describeReceiptFailure>;
  doneAt?: Date;
}

/**
 * Applies the facts of many receipts in the caller's transaction, one statement per
 * step for the whole batch: find the segments, lock their messages, settle the
 * segments, count delivered siblings, move the messages (applyTransitions). The result
 * is what applying them one by one, ordered by message id and then input order, would
 * give: the first final receipt of a segment settles it (later ones are ignored), a
 * failed segment fails its message at once, and a message is delivered once every one
 * of its segments is. A receipt is ignored only when its own segment is already final
 * (or it is not final itself); one that finds only a final segment stays unmatched until
 * `settleDuplicates`. The caller holds the advisory locks of every receipt's key.
 * Writes nothing for a receipt whose outcome is not `applied`.
 */
export async function resolveReceipts(
  client: pg.PoolClient,
  facts: readonly ReceiptFacts[],
): Promise<Resolution[]> {
  if (facts.length === 0) return [];
  const found = await client.query<{ idx: number; message_id: string; seq: number; final: boolean }>(
    FIND_SEGMENTS,
    [
      facts.map((_, index) => index),
      facts.map((fact) => fact.carrierId),
      facts.map((fact) => fact.quotedId),
      facts.map((fact) => fact.receivedAt ?? null),
      await lowestMessageId(client, facts),
      dueByIdBound(),
    ],
  );
  const segmentOf = new Map<number, { messageId: string; seq: number }>();
  const results: Resolution[] = facts.map((fact) => ({
    // A non-final receipt (accepted, enroute, unknown) never changes anything: it is not
    // kept waiting for its segment either.
    outcome: isFinalReceiptState(fact.state) ? "unmatched" : "ignored",
  }));
  for (const row of found.rows) {
    const segment = { messageId: row.message_id, seq: row.seq };
    const fact = facts[row.idx]!;
    if (!row.final) segmentOf.set(row.idx, segment);
    else if (fact.settleDuplicates || !isFinalReceiptState(fact.state))
      results[row.idx] = { outcome: "ignored", ...segment };
  }
  for (const [index, segment] of segmentOf) results[index] = { outcome: "ignored", ...segment };
  // A final receipt that loses its segment to another (in this batch, or to a concurrent one)
  // finds it final: a duplicate, or one for a later submit of the same id (as one by one).
  const lost = (index: number) => {
    if (!facts[index]!.settleDuplicates) results[index] = { outcome: "unmatched" };
  };

  // The first final receipt of each segment claims it, in message-id then input order.
  const order = [...segmentOf.keys()]
    .filter((index) => isFinalReceiptState(facts[index]!.state))
    .sort((a, b) => compare(segmentOf.get(a)!.messageId, segmentOf.get(b)!.messageId) || a - b);
  const claims = new Map<string, Claim>();
  for (const index of order) {
    const { messageId, seq } = segmentOf.get(index)!;
    const key = `${messageId}\u0000${seq}`;
    if (claims.has(key)) {
      lost(index);
      continue;
    }
    const fact = facts[index]!;
    const failure = isFailedReceiptState(fact.state)
      ? describeReceiptFailure(fact.state, fact.errorCode)
      : undefined;
    claims.set(key, { index, messageId, seq, failure });
  }
  if (claims.size === 0) return results;

  const messageIds = [...new Set([...claims.values()].map((claim) => claim.messageId))];
  // This and the next two: unnamed, planned for their ids (docs/decisions.md#partitions).
  const locked = await client.query<{ id: string; status: string; segment_count: number }>({
    text: LOCK_MESSAGES,
    values: [messageIds],
  });
  const messages = new Map(locked.rows.map((row) => [row.id, row]));
  const pending = [...claims.values()];
  const { first, last } = idRange(messageIds);
  const finished = await client.query<{ message_id: string; seq: number; done_at: Date }>({
    text: FINISH_SEGMENTS,
    values: [
      pending.map((c) => c.messageId),
      pending.map((c) => c.seq),
      pending.map((c) => (c.failure ? "failed" : "delivered")),
      pending.map((c) => c.failure?.errorCode ?? null),
      pending.map((c) => facts[c.index]!.doneAt ?? null),
      pending.map((c) => facts[c.index]!.carrierDoneAt ?? null),
      first,
      last,
    ],
  });
  const applied: Claim[] = [];
  for (const row of finished.rows) {
    const claim = claims.get(`${row.message_id}\u0000${row.seq}`)!;
    claim.doneAt = row.done_at;
    results[claim.index]!.outcome = "applied";
    applied.push(claim);
  }
  for (const claim of claims.values()) if (results[claim.index]!.outcome !== "applied") lost(claim.index);
  applied.sort((a, b) => compare(a.messageId, b.messageId) || a.index - b.index);

  // Per message: the first failure fails it; otherwise the last delivery that completes it delivers it.
  const decisive = new Map<string, Claim>();
  for (const claim of applied) {
    const current = decisive.get(claim.messageId);
    if (!current?.failure) decisive.set(claim.messageId, claim);
  }
  const open = [...decisive.values()].filter((claim) => {
    const status = messages.get(claim.messageId)?.status;
    return status !== "delivered" && status !== "failed";
  });
  const needCount = open.filter((claim) => !claim.failure).map((claim) => claim.messageId);
  const delivered = new Map<string, number>();
  if (needCount.length > 0) {
    const counted = await client.query<{ message_id: string; delivered: number }>({
      text: COUNT_DELIVERED,
      values: [needCount],
    });
    for (const row of counted.rows) delivered.set(row.message_id, row.delivered);
  }
  const moves = open.filter(
    (claim) =>
      claim.failure ||
      (delivered.get(claim.messageId) ?? 0) >= (messages.get(claim.messageId)?.segment_count ?? 1),
  );
  const transitions = await applyTransitions(
    client,
    moves.map((claim): TransitionInput => ({
      messageId: claim.messageId,
      to: claim.failure ? "failed" : "delivered",
      at: claim.doneAt!,
      errorCode: claim.failure?.errorCode,
      errorMessage: claim.failure?.errorMessage,
    })),
  );
  moves.forEach((claim, i) => {
    const transition = transitions[i]!;
    if (transition.applied)
      results[claim.index]!.transition = {
        to: claim.failure ? "failed" : "delivered",
        sequence: transition.sequence,
      };
  });
  return results;
}

const HOUR_MS = 3_600_000;

/**
 * The smallest message id these receipts' segments can have. A segment was submitted within its
 * carrier's receipt window (carriers.receipt_window_hours) before its receipt came, and a
 * message is submitted within its validity (at most VALIDITY_MAX_SECONDS) of the time it was
 * due, which is its id's time; an hour more for hosts whose clocks disagree. One small read of
 * the carriers' windows per batch.
 */
async function lowestMessageId(client: pg.PoolClient, facts: readonly ReceiptFacts[]): Promise<string> {
  const { rows } = await client.query<{ hours: number | null }>({
    name: "receipts-window-hours",
    text: "SELECT max(receipt_window_hours)::int AS hours FROM carriers WHERE id = ANY($1::text[])",
    values: [[...new Set(facts.map((fact) => fact.carrierId))]],
  });
  const windowMs = (rows[0]?.hours ?? 72) * HOUR_MS;
  const earliest = Math.min(...facts.map((fact) => (fact.receivedAt ?? new Date()).getTime()));
  return idBoundAt("msg", earliest - windowMs - VALIDITY_MAX_SECONDS * 1000 - HOUR_MS);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
