import { countPlatformStatuses } from "@sms/message-state";
import { withinScrapeBudget, type MetricsRegistry } from "@sms/metrics";
import { Gauge } from "prom-client";

/** Statuses a message leaves again (docs/messages.md#states); the final ones only ever grow and are not counted here. */
export const OPEN_STATUSES = ["scheduled", "queued", "sent"] as const;

interface Queryable {
  query<R extends object>(sql: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/*
 * Read at scrape time from the message counts (docs/decisions.md#message-counts), and only the
 * statuses a message leaves again: their count rows are the hours that still hold such a
 * message, so a scrape costs the traffic in flight, not the size of the table. Counters
 * bumped at each transition were the alternative: they would only say what one replica
 * did since it started, never how many messages are waiting now.
 */
/** Messages not yet final, by status, read from PostgreSQL at scrape time. */
export class MessageStatusMetrics {
  readonly open: Gauge<"status">;

  constructor(metrics: MetricsRegistry, pool: Queryable) {
    this.open = new Gauge({
      name: "sms_messages_open",
      help: "Messages not yet final, by status (scheduled, queued, sent), counted in PostgreSQL at scrape time: a platform-wide figure, the same on every replica",
      labelNames: ["status"],
      registers: [metrics.registry],
      async collect() {
        this.reset();
        const counts = await withinScrapeBudget(countPlatformStatuses(pool, OPEN_STATUSES)).catch(() => null);
        // Unanswered: no series this scrape rather than zeros that would look like an empty backlog.
        if (!counts) return;
        for (const status of OPEN_STATUSES) this.set({ status }, counts[status] ?? 0);
      },
    });
  }
}

/** Counting stops here: enough for a scaler or an alert, and a scrape stays cheap during an outage's backlog. */
export const OUTBOX_COUNT_CAP = 100_000;

const COUNT_PENDING_EVENTS = `
SELECT count(*)::int AS n FROM (SELECT 1 FROM outbox_pending LIMIT ${OUTBOX_COUNT_CAP}) AS pending`;
const OLDEST_PENDING_EVENT = `
SELECT COALESCE((SELECT EXTRACT(EPOCH FROM now() - created_at) FROM outbox_pending ORDER BY seq LIMIT 1), 0)::float8 AS age`;

/**
 * The event relay's backlog, read from PostgreSQL at scrape time (a platform-wide figure):
 * status changes not yet turned into webhook deliveries and SMPP receipts, the rows of
 * outbox_pending. The age reads the first in order, the count at most OUTBOX_COUNT_CAP.
 */
export class OutboxMetrics {
  readonly pending: Gauge;
  readonly oldestAge: Gauge;

  constructor(metrics: MetricsRegistry, pool: Queryable) {
    const registers = [metrics.registry];
    this.pending = new Gauge({
      name: "sms_outbox_pending_events",
      help: `Status-change events not yet published by the event relay (counted up to ${OUTBOX_COUNT_CAP}), read from PostgreSQL at scrape time: aggregate replicas with max`,
      registers,
      async collect() {
        this.reset();
        const { rows } = await withinScrapeBudget(pool.query<{ n: number }>(COUNT_PENDING_EVENTS)).catch(
          () => ({
            rows: null,
          }),
        );
        if (rows?.[0]) this.set(rows[0].n);
      },
    });
    this.oldestAge = new Gauge({
      name: "sms_outbox_oldest_pending_age_seconds",
      help: "Age of the oldest status-change event the relay has not published (0 when none): how late webhooks and SMPP receipts are",
      registers,
      async collect() {
        this.reset();
        const { rows } = await withinScrapeBudget(pool.query<{ age: number }>(OLDEST_PENDING_EVENT)).catch(
          () => ({
            rows: null,
          }),
        );
        if (rows?.[0]) this.set(rows[0].age);
      },
    });
  }
}
