import { DelayedError, type Job, type WebhookDeliverJob } from "@sms/queues";
import type { Logger } from "@sms/logger";
import { renderWebhookBody } from "@sms/webhook-events";
import type { WebhookSender } from "@sms/webhook-sender";
import type { DeliveryStore } from "./delivery-store";
import type { EndpointHealth } from "./endpoint-health";
import type { EndpointLeases } from "./endpoint-leases";
import { nextRetryDelay } from "./schedule";

export interface DeliverContext {
  store: DeliveryStore;
  endpoints: EndpointHealth;
  leases: EndpointLeases;
  sender: WebhookSender;
  logger: Logger;
  retryScheduleMs: readonly number[];
  /** An endpoint at its cap sends the job back to wait about this long (randomised ×0.5–1.5). */
  capWaitMs: number;
}

export type DeliverOutcome = "succeeded" | "retry" | "failed" | "skipped" | "at-cap";

/**
 * One attempt of one delivery. The job is the trigger; webhook_deliveries is the
 * truth, so a repeated or late job for a finished delivery does nothing. A failed
 * attempt moves the job to BullMQ's delayed set for the next step of the schedule
 * (DelayedError tells BullMQ this is not a failure), so a dead endpoint's backlog
 * waits in Redis, not in a worker slot.
 */
export async function deliver(
  context: DeliverContext,
  job: Job<WebhookDeliverJob>,
  token?: string,
): Promise<DeliverOutcome> {
  const { eventId, accountId } = job.data;
  const target = await context.endpoints.target(accountId);
  if (!target?.enabled) {
    // Only a still-pending delivery changes, so a finished one needs no read first.
    await context.store.failWithoutAttempt(eventId, target ? "endpoint disabled" : "no endpoint");
    return "failed";
  }
  // The cap first: a slow endpoint's backlog cycles through here, and at the cap it
  // costs one cached lookup and one Redis call, never a database read.
  const lease = await context.leases.acquire(accountId);
  if (!lease) {
    await job.moveToDelayed(Date.now() + Math.round(context.capWaitMs * (0.5 + Math.random())), token);
    throw new DelayedError();
  }
  let delivery;
  let result;
  try {
    delivery = await context.store.load(eventId);
    if (!delivery || delivery.status !== "pending") return "skipped";
    result = await context.sender.send({
      url: target.url,
      secrets: target.secrets,
      id: eventId,
      body: renderWebhookBody(delivery.payload),
    });
  } finally {
    await lease.release();
  }
  const attempt = delivery.attempts + 1;
  const base = { eventId, accountId, attempt, url: target.url, result };

  if (result.outcome === "success") {
    await context.store.record({ ...base, status: "succeeded", nextAttemptAt: null });
    await context.endpoints.succeeded(target);
    return "succeeded";
  }
  if (result.outcome === "gone") {
    await context.store.record({ ...base, status: "failed", nextAttemptAt: null });
    await context.endpoints.disable(target, "gone");
    return "failed";
  }
  const delay = nextRetryDelay(
    attempt - (job.data.baseAttempt ?? 0),
    context.retryScheduleMs,
    result.retryAfterMs,
  );
  const nextAttemptAt = delay === null ? null : new Date(Date.now() + delay);
  await context.store.record({ ...base, status: nextAttemptAt ? "pending" : "failed", nextAttemptAt });
  await context.endpoints.failed(target, result.startedAt);
  if (!nextAttemptAt) {
    context.logger.info("webhook delivery failed for good", {
      account_id: accountId,
      event_id: eventId,
      attempts: attempt,
      error: result.error,
    });
    return "failed";
  }
  await job.moveToDelayed(nextAttemptAt.getTime(), token);
  throw new DelayedError();
}
