import type pg from "pg";
import { Batcher } from "@sms/db";
import type { AttemptResult } from "@sms/webhook-sender";
import type { WebhookEvent } from "@sms/webhook-events";

/** A pending delivery this job now holds. */
export interface ClaimedDelivery {
  eventId: string;
  attempts: number;
  payload: WebhookEvent;
}

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
const CLAIM = `
UPDATE webhook_deliveries SET claim = $2, next_attempt_at = now() + $3 * interval '1 millisecond'
WHERE event_id = ANY($1::text[]) AND status = 'pending'
  AND (claim = $2 OR next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second')
RETURNING event_id, attempts, payload`;

// Every attempt of a flush in one statement: the attempt rows and the deliveries' new state.
const RECORD = `
WITH a AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[],
                       $9::timestamptz[], $10::text[], $11::timestamptz[])
    AS t(event_id, account_id, attempt, url, status_code, latency_ms, response_body, error, started_at, new_status, next_attempt_at)
), attempts_in AS (
  INSERT INTO webhook_attempts (event_id, account_id, attempt, url, status_code, latency_ms, response_body, error, started_at)
  SELECT event_id, account_id, attempt, url, status_code, latency_ms, response_body, error, started_at FROM a
)
UPDATE webhook_deliveries AS d SET
  status = a.new_status::"WebhookDeliveryStatus",
  attempts = GREATEST(d.attempts, a.attempt),
  next_attempt_at = a.next_attempt_at,
  claim = NULL,
  last_attempt_at = a.started_at,
  last_status_code = a.status_code,
  last_error = a.error,
  succeeded_at = CASE WHEN a.new_status = 'succeeded' THEN a.started_at + a.latency_ms * interval '1 millisecond' ELSE d.succeeded_at END
FROM a WHERE d.event_id = a.event_id`;

const FAIL_WITHOUT_ATTEMPT = `
UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, claim = NULL, last_error = $2
WHERE event_id = ANY($1::text[]) AND status = 'pending'`;

/** PostgreSQL text cannot hold NUL; an endpoint's answer can. */
const storable = (text: string | null) => (text === null ? null : text.replaceAll("\u0000", "\uFFFD"));

/** Claims and writes of webhook_deliveries / webhook_attempts; attempts grouped across concurrent jobs. */
export class DeliveryStore {
  private readonly records: Batcher<AttemptRecord>;

  constructor(private readonly pool: pg.Pool) {
    this.records = new Batcher((records) => this.recordMany(records), { maxBatch: 500, maxConcurrent: 2 });
  }

  /** Takes the job's pending, due rows for `leaseMs` (one statement); the rest are done, claimed by another job, or not due. */
  async claim(eventIds: readonly string[], claim: string, leaseMs: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.pool.query<{ event_id: string; attempts: number; payload: WebhookEvent }>({
      name: "webhook-claim-deliveries",
      text: CLAIM,
      values: [eventIds, claim, leaseMs],
    });
    return rows.map((row) => ({ eventId: row.event_id, attempts: row.attempts, payload: row.payload }));
  }

  record(attempt: AttemptRecord): Promise<void> {
    return this.records.add(attempt);
  }

  /** Ends pending deliveries without an attempt (their endpoint is disabled or gone). */
  async failWithoutAttempt(eventIds: readonly string[], reason: string): Promise<void> {
    await this.pool.query({
      name: "webhook-fail-without-attempt",
      text: FAIL_WITHOUT_ATTEMPT,
      values: [eventIds, reason],
    });
  }

  private async recordMany(records: AttemptRecord[]): Promise<void> {
    const column = <T>(pick: (r: AttemptRecord) => T) => records.map(pick);
    await this.pool.query({
      name: "webhook-record-attempts",
      text: RECORD,
      values: [
        column((r) => r.eventId),
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
      ],
    });
  }
}
