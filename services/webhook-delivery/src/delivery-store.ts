import type pg from "pg";
import { Batcher } from "@sms/db";
import { idRange } from "@sms/ids";
import { eventDataSql, eventDataSubquery } from "@sms/message-state";
import type { AttemptResult } from "@sms/webhooks";
import { toWebhookEvent, type OutboxRow, type WebhookEvent } from "@sms/webhooks";

/** A pending delivery this job now holds. */
export interface ClaimedDelivery {
  eventId: string;
  attempts: number;
  payload: WebhookEvent;
}

/** A claimed delivery row: its copy of the body (older rows only), and the event it names. */
interface ClaimedRow {
  event_id: string;
  attempts: number;
  payload: WebhookEvent | null;
  account_id: string;
  message_id: string;
  event_type: string;
  /** A status event's place in its message's history; null for an event of no message's history. */
  sequence: number | null;
  created_at: Date;
}

/** A status event is its message's history row (docs/decisions.md#status-events); message.received is not. */
const isStatusEvent = (row: ClaimedRow) => row.sequence !== null && row.event_type !== "message.received";

export interface AttemptRecord {
  eventId: string;
  accountId: string;
  attempt: number;
  url: string;
  result: AttemptResult;
  /** The delivery's status after this attempt. */
  status: "pending" | "succeeded" | "failed";
  nextAttemptAt: Date | null;
}

// The claim (docs/decisions.md#webhook-claims): the job's pending rows that are due, or
// already its own (a rerun after a crash, the rest of a batch handed on), become its own
// until the lease ends; a second job for the same rows gets none of them. The lease is
// next_attempt_at, so the reconciler, which looks for overdue rows, leaves them alone.
// One second of grace for a worker clock a little ahead of the database's.
// The body comes from the event (docs/webhooks.md#storage), read once the claim has told which
// messages the events are of (the statements after this one); a delivery written before
// deliveries stopped copying it keeps its own copy, which wins.
//
// A row the relay wrote already claimed by this job (claim = $2, next_attempt_at its writing
// time) is only read, not written again, while neither the reconciler nor a job with another
// claim can take it for longer than one hold: its next_attempt_at is later than now - $4
// (WEBHOOK_RECONCILE_STALE_MS less the hold). A job with another claim takes a row whose claim
// is set only after that window, or once the reconciler has cleared the claim.
// What a claimed delivery row gives the send: its state, and the event it names (a status event's
// message and sequence), whether it was held already or taken now.
const CLAIMED_COLUMNS =
  "event_id, attempts, payload, account_id, message_id, event_type, sequence, created_at";
const CLAIM = `
WITH held AS (
  SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries
  WHERE event_id = ANY($1::text[]) AND status = 'pending' AND claim = $2
    AND next_attempt_at > now() - $4 * interval '1 millisecond'
), taken AS (
  UPDATE webhook_deliveries SET claim = $2, next_attempt_at = now() + $3 * interval '1 millisecond'
  WHERE event_id = ANY($1::text[]) AND status = 'pending' AND event_id NOT IN (SELECT event_id FROM held)
    AND (claim = $2 OR (
      (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second')
      AND (claim IS NULL OR next_attempt_at <= now() - $4 * interval '1 millisecond')))
  RETURNING ${CLAIMED_COLUMNS}
)
SELECT * FROM held UNION ALL SELECT * FROM taken`;

// The data of the claimed status events ($1 event ids, $2 message ids, $3 sequences): a status
// event is its history row (docs/decisions.md#status-events), its data built from the message and
// the history (docs/decisions.md#event-data). $4 and $5, the smallest and the largest of the
// message ids, leave every other week out of the plan (docs/decisions.md#message-weeks). No row
// for an event whose message is gone.
const STATUS_EVENT_DATA = `
SELECT t.event_id, d.data
FROM unnest($1::text[], $2::text[], $3::int[]) AS t(event_id, message_id, sequence)
CROSS JOIN LATERAL ${eventDataSubquery("t.message_id", "t.sequence", { first: "$4", last: "$5" })} AS d`;

// Any other event (message.received; a status event written before) is an outbox_events row.
// LATERAL … LIMIT 1: one key lookup per event, whatever the statistics say. $2 and $3, the
// smallest and the largest of the ids, leave out the other days (the table is partitioned by
// them): a range, not `= ANY($1)`, which the planner took as each probe's index condition.
const OUTBOX_EVENTS = `
SELECT e.id, e.account_id, e.message_id, e.type, e.sequence, ${eventDataSql("e")} AS payload, e.created_at
FROM unnest($1::text[]) AS t(id)
CROSS JOIN LATERAL (
  SELECT * FROM outbox_events AS e WHERE e.id = t.id AND e.id >= $2 AND e.id <= $3 LIMIT 1
) AS e`;

// Every attempt of a flush in one statement (docs/webhooks.md#storage). A delivery's first success
// is kept on its row alone: its number, status code, start and end, so the common case costs
// no webhook_attempts row and no entries in its indexes. Every other attempt is a row there: the
// failures, and a success of a delivery that has already succeeded (a duplicate send), so a
// second success stays visible. A succeeded delivery is final: no later record changes it.
// Whether the success was kept is read back from the UPDATE itself, so two flushes racing on one
// delivery keep one success on the row and record the other as a row.
// One record per delivery updates it: its first success if it has one, else its latest attempt.
const RECORD = `
WITH a AS (
  SELECT t.*, t.new_status = 'succeeded'
           AND row_number() OVER (PARTITION BY t.event_id, t.new_status = 'succeeded' ORDER BY t.started_at) = 1
           AS first_success
  FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[],
              $9::timestamptz[], $10::text[], $11::timestamptz[])
    AS t(event_id, account_id, attempt, url, status_code, latency_ms, response_body, error, started_at, new_status, next_attempt_at)
), latest AS (
  SELECT DISTINCT ON (event_id) * FROM a ORDER BY event_id, first_success DESC, started_at DESC
), updated AS (
  UPDATE webhook_deliveries AS d SET
    status = l.new_status::"WebhookDeliveryStatus",
    attempts = GREATEST(d.attempts, l.attempt),
    next_attempt_at = l.next_attempt_at,
    claim = NULL,
    last_attempt_at = l.started_at,
    last_status_code = l.status_code,
    last_error = l.error,
    succeeded_at = CASE WHEN l.first_success THEN l.started_at + l.latency_ms * interval '1 millisecond' ELSE d.succeeded_at END,
    success_on_row = CASE WHEN l.first_success THEN true ELSE d.success_on_row END
  -- $12 and $13, the smallest and the largest event id: the days of these ids only (the table is
  -- partitioned by them; a join alone reads every day). Not = ANY($1), which beside the join the
  -- planner takes as each probe's index condition, sorting the list again for every row.
  FROM latest AS l WHERE d.event_id = l.event_id AND d.event_id BETWEEN $12 AND $13 AND d.status <> 'succeeded'
  RETURNING d.event_id, d.status
)
INSERT INTO webhook_attempts (event_id, account_id, attempt, url, status_code, latency_ms, response_body, error, started_at)
SELECT event_id, account_id, attempt, url, status_code, latency_ms, response_body, error, started_at FROM a
WHERE NOT (a.first_success AND EXISTS (
  SELECT 1 FROM updated AS u WHERE u.event_id = a.event_id AND u.status = 'succeeded'))`;

const FAIL_WITHOUT_ATTEMPT = `
UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, claim = NULL, last_error = $2
WHERE event_id = ANY($1::text[]) AND status = 'pending'`;

/** The statements, for the tests of their plans. */
export const DELIVERY_STATEMENTS = {
  CLAIM,
  STATUS_EVENT_DATA,
  OUTBOX_EVENTS,
  RECORD,
  FAIL_WITHOUT_ATTEMPT,
} as const;

/**
 * A record waits this long for the others of its burst before its statement starts. Under a
 * trickle a batch job's requests end a few milliseconds apart, and each of them alone made a
 * statement: about four per job in bench:e2e, a third of them of one row. The webhook has been
 * sent by then; only its record and the end of its job wait.
 */
const RECORD_LINGER_MS = 10;

/** PostgreSQL text cannot hold NUL; an endpoint's answer can. */
const storable = (text: string | null) => (text === null ? null : text.replaceAll("\u0000", "\uFFFD"));

/**
 * Claims and writes of webhook_deliveries / webhook_attempts; attempts grouped across concurrent jobs.
 * Its statements are unnamed, so planned for each run (docs/decisions.md#partitions): a prepared
 * statement's generic plan keeps the scan it chose for a day partition while that day was empty.
 */
export class DeliveryStore {
  private readonly records: Batcher<AttemptRecord>;

  /**
   * @param heldForMs how long after the relay wrote a row the reconciler is still sure to
   * leave it alone for a whole hold (WEBHOOK_RECONCILE_STALE_MS less the hold): until then a
   * row the relay wrote claimed by a job is sent by that job without being written first.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly heldForMs = 0,
  ) {
    this.records = new Batcher((records) => this.recordMany(records), {
      maxBatch: 500,
      maxConcurrent: 2,
      lingerMs: RECORD_LINGER_MS,
    });
  }

  /**
   * Takes the job's pending, due rows for `leaseMs` (one statement); the rest are done, claimed
   * by another job, or not due. Then reads their events. A claimed delivery whose event row (or,
   * for a status event, its message) is gone, and that has no copy of its own, cannot be sent:
   * it is failed at once. Should the read fail, the rows stay this claim's: the job's retry
   * takes them back.
   */
  async claim(eventIds: readonly string[], claim: string, leaseMs: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.pool.query<ClaimedRow>({
      text: CLAIM,
      values: [eventIds, claim, leaseMs, this.heldForMs],
    });
    const events = await this.readEvents(rows.filter((row) => row.payload === null));
    const claimed: ClaimedDelivery[] = [];
    const orphans: string[] = [];
    for (const row of rows) {
      const payload = row.payload ?? events.get(row.event_id) ?? null;
      if (payload) claimed.push({ eventId: row.event_id, attempts: row.attempts, payload });
      else orphans.push(row.event_id);
    }
    if (orphans.length > 0) await this.failWithoutAttempt(orphans, "event not found");
    return claimed;
  }

  /**
   * The events of deliveries that hold no copy, by event id: status events from their message and
   * history, the others from their outbox_events row. Unnamed statements, planned for each run
   * (see the class).
   */
  private async readEvents(rows: ClaimedRow[]): Promise<Map<string, WebhookEvent>> {
    const events = new Map<string, WebhookEvent>();
    const statusEvents = rows.filter(isStatusEvent);
    const outboxEvents = rows.filter((row) => !isStatusEvent(row));
    if (statusEvents.length > 0) {
      const messageIds = statusEvents.map((row) => row.message_id);
      const { first, last } = idRange(messageIds);
      const { rows: data } = await this.pool.query<{ event_id: string; data: OutboxRow["payload"] }>(
        STATUS_EVENT_DATA,
        [
          statusEvents.map((row) => row.event_id),
          messageIds,
          statusEvents.map((row) => row.sequence),
          first,
          last,
        ],
      );
      const byEvent = new Map(data.map((row) => [row.event_id, row.data]));
      for (const row of statusEvents) {
        const payload = byEvent.get(row.event_id);
        if (!payload) continue;
        events.set(
          row.event_id,
          toWebhookEvent({
            id: row.event_id,
            account_id: row.account_id,
            message_id: row.message_id,
            type: row.event_type,
            sequence: row.sequence!,
            payload,
            created_at: row.created_at,
          }),
        );
      }
    }
    if (outboxEvents.length > 0) {
      const eventIds = outboxEvents.map((row) => row.event_id);
      const { first, last } = idRange(eventIds);
      const { rows: found } = await this.pool.query<OutboxRow & { payload: OutboxRow["payload"] | null }>(
        OUTBOX_EVENTS,
        [eventIds, first, last],
      );
      for (const event of found)
        if (event.payload !== null)
          events.set(event.id, toWebhookEvent({ ...event, payload: event.payload }));
    }
    return events;
  }

  record(attempt: AttemptRecord): Promise<void> {
    return this.records.add(attempt);
  }

  /** Ends pending deliveries without an attempt (their endpoint is disabled or gone). */
  async failWithoutAttempt(eventIds: readonly string[], reason: string): Promise<void> {
    await this.pool.query({
      text: FAIL_WITHOUT_ATTEMPT,
      values: [eventIds, reason],
    });
  }

  private async recordMany(records: AttemptRecord[]): Promise<void> {
    const column = <T>(pick: (r: AttemptRecord) => T) => records.map(pick);
    const eventIds = column((r) => r.eventId);
    const { first, last } = idRange(eventIds);
    await this.pool.query({
      text: RECORD,
      values: [
        eventIds,
        column((r) => r.accountId),
        column((r) => r.attempt),
        column((r) => r.url),
        column((r) => r.result.statusCode),
        column((r) => r.result.latencyMs),
        column((r) => storable(r.result.responseBody)),
        column((r) => storable(r.result.error)),
        column((r) => r.result.startedAt),
        column((r) => r.status),
        column((r) => r.nextAttemptAt),
        first,
        last,
      ],
    });
  }
}
