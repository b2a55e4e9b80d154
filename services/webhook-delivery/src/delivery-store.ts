import type pg from "pg";
import { Batcher } from "@sms/db";
import type { AttemptResult } from "@sms/webhook-sender";
import type { WebhookEvent } from "@sms/webhook-events";

export interface StoredDelivery {
  eventId: string;
  status: "pending" | "succeeded" | "failed";
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

const LOAD = `
SELECT event_id, status::text AS status, attempts, payload
FROM webhook_deliveries WHERE event_id = ANY($1::text[])`;

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
  last_attempt_at = a.started_at,
  last_status_code = a.status_code,
  last_error = a.error,
  succeeded_at = CASE WHEN a.new_status = 'succeeded' THEN a.started_at + a.latency_ms * interval '1 millisecond' ELSE d.succeeded_at END
FROM a WHERE d.event_id = a.event_id`;

const FAIL_WITHOUT_ATTEMPT = `
UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = $2
WHERE event_id = $1 AND status = 'pending'`;

/** PostgreSQL text cannot hold NUL; an endpoint's answer can. */
const storable = (text: string | null) => (text === null ? null : text.replaceAll("\u0000", "\uFFFD"));

/** Reads and writes of webhook_deliveries / webhook_attempts, grouped across concurrent jobs. */
export class DeliveryStore {
  private readonly loads: Batcher<string, StoredDelivery | null>;
  private readonly records: Batcher<AttemptRecord>;

  constructor(private readonly pool: pg.Pool) {
    this.loads = new Batcher((ids) => this.loadMany(ids), { maxBatch: 500, maxConcurrent: 2 });
    this.records = new Batcher((records) => this.recordMany(records), { maxBatch: 500, maxConcurrent: 2 });
  }

  load(eventId: string): Promise<StoredDelivery | null> {
    return this.loads.add(eventId);
  }

  record(attempt: AttemptRecord): Promise<void> {
    return this.records.add(attempt);
  }

  /** Ends a pending delivery without an attempt (its endpoint is disabled or gone). */
  async failWithoutAttempt(eventId: string, reason: string): Promise<void> {
    await this.pool.query({
      name: "webhook-fail-without-attempt",
      text: FAIL_WITHOUT_ATTEMPT,
      values: [eventId, reason],
    });
  }

  private async loadMany(ids: string[]): Promise<Array<StoredDelivery | null>> {
    const { rows } = await this.pool.query<{
      event_id: string;
      status: StoredDelivery["status"];
      attempts: number;
      payload: WebhookEvent;
    }>({
      name: "webhook-load-deliveries",
      text: LOAD,
      values: [ids],
    });
    const byId = new Map(rows.map((row) => [row.event_id, row]));
    return ids.map((id) => {
      const row = byId.get(id);
      return row
        ? { eventId: row.event_id, status: row.status, attempts: row.attempts, payload: row.payload }
        : null;
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
