import type pg from "pg";
import { idRange, idTime } from "@sms/ids";
import type { Logger } from "@sms/logger";
import { dueByIdBound, isMessageStatus, isTerminal } from "@sms/message-state";
import { startLoop, type Loop } from "@sms/service-runtime";
import {
  batchDeliveries,
  webhookClassOfPriority,
  type SmppReceiptJob,
  type SmppReceiptProducer,
  type WebhookBatch,
  type WebhookDeliverProducer,
} from "@sms/queues";
import { notifyReceiptsStored, storeReceiptsFor } from "@sms/customer-receipts";
import { isSubscribed, type OutboxRow } from "@sms/webhooks";
import {
  CLAIM_EVENTS,
  CLAIM_HIGH_EVENTS,
  INSERT_DELIVERIES,
  NEXT_PENDING,
  NEXT_PENDING_HIGH,
  READ_OUTBOX_EVENTS,
  READ_STATUS_EVENTS,
} from "./relay.sql";

interface ClaimedRow extends Omit<OutboxRow, "payload"> {
  /** The message's source (api, smpp, otp); null for an inbound message's event. */
  source: string | null;
  /** The status the event reports (null for message.received). */
  status: string | null;
  /** The event's data, read only for an SMPP customer's message (its final events become receipts). */
  smpp_data: Record<string, unknown> | null;
  /** A status event read from its history row: its time is its id's. */
  from_history: boolean;
  /** Its message's priority, which chooses its webhooks' queue (null: no message). */
  priority: string | null;
  /** null when the account has no endpoint. */
  endpoint_enabled: boolean | null;
  /** The endpoint's subscription: null for every message.* event. */
  endpoint_event_types: string[] | null;
}

export interface RelayProducers {
  webhooks: WebhookDeliverProducer;
  smppReceipts: SmppReceiptProducer;
}

export interface RelayOptions {
  /** Events claimed at most (of each part: the high ones, the ones not bulk, and the oldest of all). */
  limit: number;
  /** Only the events of high messages (webhook-delivery's high lane): the scheduler's relay takes every event. */
  highOnly?: boolean;
}

export interface RelayResult {
  /** Events published by this call. */
  events: number;
  /** Deliveries created and queued. */
  webhooks: number;
  /** Final events of SMPP-submitted messages: receipts written (or, rarely, queued) for the smpp-server. */
  smppReceipts: number;
  /** Events published by this call per status they announce (each status change is relayed once: the metric's source). */
  statuses: Record<string, number>;
  /** Status events claimed whose message or history row was not found: not published (the loop logs them). */
  unfound?: string[];
}

/** An outbox_pending row the relay took: a status event names its message and sequence. */
interface ClaimedEvent {
  event_id: string;
  message_id: string | null;
  sequence: number | null;
  created_at: Date;
}

/**
 * Publishes, in one transaction, up to `limit` of the oldest outbox events, up to `limit` of
 * the oldest `high` ones and up to `limit` of the oldest not `bulk` (CLAIM_EVENTS):
 * - a webhook_deliveries row per event of an account whose endpoint subscribes to its type, queued on
 *   the webhook.deliver queue of its class after the commit as one batch job per account and class (the worker reads
 *   the rows, so they must exist first); if that enqueue fails, the webhook reconciler
 *   finds the pending rows;
 * - the smpp_receipts rows of each final event (delivered, failed, canceled) of a
 *   message submitted over SMPP, in the same transaction, with a notification to the
 *   smpp-server replicas at the commit; an smpp.dlr-out job, queued before the commit,
 *   only for an event whose message has no submit record yet (a rollback queues it
 *   again under the same job id, which BullMQ ignores while the first exists).
 */
export async function relayOutbox(
  pool: pg.Pool,
  producers: RelayProducers,
  options: RelayOptions,
): Promise<RelayResult> {
  const client = await pool.connect();
  let published: Awaited<ReturnType<typeof publishClaimed>>;
  try {
    // An idle relay polls every EVENT_RELAY_IDLE_MS: it stops at this one prepared read, before
    // the claim and its reads, which are planned for each run.
    const waiting = await client.query(
      options.highOnly
        ? { name: "outbox-relay-next-pending-high", text: NEXT_PENDING_HIGH }
        : { name: "outbox-relay-next-pending", text: NEXT_PENDING },
    );
    if (waiting.rowCount === 0) return { events: 0, webhooks: 0, smppReceipts: 0, statuses: {} };
    await client.query("BEGIN");
    published = await publishClaimed(client, producers, options);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  await producers.webhooks.enqueueBatches(published.toQueue);
  return {
    events: published.events,
    webhooks: published.toQueue.reduce((sum, batch) => sum + batch.eventIds.length, 0),
    smppReceipts: published.smppReceipts,
    statuses: published.statuses,
    unfound: published.unfound,
  };
}

/** Inside the relay's transaction: claim, write deliveries, queue SMPP receipts. */
async function publishClaimed(client: pg.PoolClient, producers: RelayProducers, options: RelayOptions) {
  // Unnamed, so planned for its limit: a generic plan assumes a tenth of the table for `LIMIT $1`,
  // and one made during a burst could sort the whole backlog (the test of the claim's plan).
  const { rows: claimed } = await client.query<ClaimedEvent>(
    options.highOnly ? CLAIM_HIGH_EVENTS : CLAIM_EVENTS,
    [options.limit],
  );
  if (claimed.length === 0) return { events: 0, toQueue: [], smppReceipts: 0, statuses: {} };
  let rows = await readClaimed(client, claimed);
  // A status event stores no time: it is its id's (docs/decisions.md#status-events), decoded here
  // rather than in the statement, where it costs more per event.
  for (const row of rows) if (row.from_history) row.created_at = new Date(idTime(row.id));
  const unfound = rows.filter((row) => row.type === null).map((row) => row.id);
  if (unfound.length > 0) rows = rows.filter((row) => row.type !== null);
  const toQueue = await insertDeliveries(
    client,
    // An event nobody subscribed to costs nothing: no delivery row, no job, no attempt.
    rows.filter((row) => row.endpoint_enabled !== null && isSubscribed(row.endpoint_event_types, row.type)),
  );
  // Receipts report final outcomes only (SMPP registered_delivery): queued and sent stay here.
  // They are written here, in the claim's transaction: a receipt exists exactly when its event
  // is published, whatever happens to Redis. The smpp-server replicas hear of them at the commit.
  const receipts = rows.filter(isFinalSmppEvent).map(toSmppReceipt);
  const { found, accountIds } = await storeReceiptsFor(client, receipts);
  await notifyReceiptsStored(client, accountIds);
  // A message without a submit record yet (its concatenated parts are linked a moment after the
  // acceptance) goes through smpp.dlr-out, whose retries wait for the record.
  await producers.smppReceipts.enqueue(receipts.filter((_, i) => !found[i]));
  const statuses: Record<string, number> = {};
  for (const row of rows) {
    const status = row.status;
    if (isMessageStatus(status)) statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return {
    events: rows.length,
    toQueue,
    smppReceipts: receipts.length,
    statuses,
    unfound: unfound.length > 0 ? unfound : undefined,
  };
}

/**
 * The claimed events' rows, in the order of their claim times (and, within one, of their
 * sequence): the status events and the outbox_events rows each in one statement. Unnamed, so
 * planned for each run (docs/decisions.md#partitions): a prepared statement's generic plan reads
 * every week of the message tables, and kept the scan it chose for a day of outbox_events while
 * that day was empty.
 */
async function readClaimed(client: pg.PoolClient, claimed: ClaimedEvent[]): Promise<ClaimedRow[]> {
  const statusEvents = claimed.filter((event) => event.message_id !== null);
  const outboxEvents = claimed.filter((event) => event.message_id === null);
  const rows: ClaimedRow[] = [];
  if (statusEvents.length > 0) {
    const messageIds = statusEvents.map((event) => event.message_id!);
    const { first, last } = idRange(messageIds);
    const read = await client.query<ClaimedRow>(READ_STATUS_EVENTS, [
      statusEvents.map((event) => event.event_id),
      messageIds,
      statusEvents.map((event) => event.sequence),
      statusEvents.map((event) => event.created_at),
      first,
      last,
    ]);
    rows.push(...read.rows);
  }
  if (outboxEvents.length > 0) {
    const eventIds = outboxEvents.map((event) => event.event_id);
    const { first, last } = idRange(eventIds);
    const read = await client.query<ClaimedRow>(READ_OUTBOX_EVENTS, [eventIds, dueByIdBound(), first, last]);
    rows.push(...read.rows);
  }
  return rows.sort(
    (a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.sequence ?? 0) - (b.sequence ?? 0),
  );
}

/**
 * Writes the deliveries and returns their batch jobs. Each pending row is written already
 * claimed by its job (docs/decisions.md#webhook-claims), so the worker that takes the job
 * need not write the row again before sending it.
 */
async function insertDeliveries(client: pg.PoolClient, rows: ClaimedRow[]): Promise<WebhookBatch[]> {
  if (rows.length === 0) return [];
  const pending = rows.filter((r) => r.endpoint_enabled);
  const batches = batchDeliveries(
    pending.map((r) => ({
      eventId: r.id,
      accountId: r.account_id,
      webhookClass: webhookClassOfPriority(r.priority),
    })),
  );
  const claims = new Map(batches.flatMap((batch) => batch.eventIds.map((id) => [id, batch.claim] as const)));
  const { rows: inserted } = await client.query<{ event_id: string }>({
    name: "outbox-relay-deliveries",
    text: INSERT_DELIVERIES,
    values: [
      rows.map((r) => r.id),
      rows.map((r) => r.account_id),
      rows.map((r) => r.message_id),
      rows.map((r) => r.type),
      rows.map((r) => (r.endpoint_enabled ? "pending" : "failed")),
      rows.map((r) => r.created_at),
      rows.map((r) => claims.get(r.id) ?? null),
      rows.map((r) => r.sequence),
    ],
  });
  // A relay retried after a lost commit acknowledgement inserts nothing again: no job either.
  const written = new Set(inserted.map((row) => row.event_id));
  return batches
    .map((batch) => ({ ...batch, eventIds: batch.eventIds.filter((id) => written.has(id)) }))
    .filter((batch) => batch.eventIds.length > 0);
}

function isFinalSmppEvent(row: ClaimedRow): boolean {
  const status = row.status;
  return row.source === "smpp" && row.smpp_data !== null && isMessageStatus(status) && isTerminal(status);
}

function toSmppReceipt(row: ClaimedRow): SmppReceiptJob {
  const data = row.smpp_data!;
  return {
    eventId: row.id,
    accountId: row.account_id,
    messageId: row.message_id,
    status: row.status as SmppReceiptJob["status"],
    previousStatus: (data.previous_status as string | null | undefined) ?? null,
    sequence: row.sequence,
    errorCode: (data.error_code as string | null | undefined) ?? null,
    occurredAt: row.created_at.toISOString(),
  };
}

/** Runs relayOutbox until stopped: again at once while batches come back full, else every `idleMs`. */
export function startOutboxRelay(options: {
  pool: pg.Pool;
  producers: RelayProducers;
  logger: Logger;
  batchSize: number;
  idleMs: number;
  highOnly?: boolean;
  onBatch?: (result: RelayResult) => void;
}): Loop {
  return startLoop({
    name: options.highOnly ? "outbox relay of high events" : "outbox relay",
    intervalMs: options.idleMs,
    logger: options.logger,
    // An outage: back off up to 5 s; the events wait in the database meanwhile.
    errorBackoffMaxMs: 5000,
    tick: async () => {
      const result = await relayOutbox(options.pool, options.producers, {
        limit: options.batchSize,
        highOnly: options.highOnly,
      });
      if (result.unfound?.length)
        options.logger.error("status events whose message was not found were not published", {
          event_ids: result.unfound,
        });
      options.onBatch?.(result);
      return result.events >= options.batchSize ? "again" : undefined;
    },
  });
}
