import { z } from "zod";

/**
 * sms.dispatch.<class>: a batch of queued messages of one account and class. The worker
 * loads everything else from the database, the source of truth.
 */
export const DispatchJob = z.object({
  messageIds: z.array(z.string().startsWith("msg_")).min(1).max(1000),
  accountId: z.string().startsWith("acc_"),
  /** Earlier tries of these messages that ended in "retry later" (carrier down, throttled, unknown outcome). */
  attempt: z.number().int().nonnegative().default(0),
  /** Their share of the account's messages/s is already reserved: dispatch without pacing again. */
  paced: z.boolean().default(false),
  /**
   * The end (ms since the epoch) of the second their share was reserved in. A paced job that
   * runs after it (a late timer, a busy worker) reserves again: sent late, its messages would
   * fall in a second already full. Absent on jobs queued before it existed.
   */
  pacedUntil: z.number().int().positive().optional(),
});
export type DispatchJob = z.infer<typeof DispatchJob>;

/**
 * webhook.deliver: a batch of deliveries (events) of one account's endpoint. The bodies
 * and the attempt history live in webhook_deliveries; the job only says which rows.
 */
export const WebhookDeliverJob = z.object({
  accountId: z.string().startsWith("acc_"),
  eventIds: z.array(z.string().startsWith("evt_")).min(1).max(1000),
  /** Attempts already made when these were queued (a replay starts the schedule again from here). */
  baseAttempt: z.number().int().nonnegative().optional(),
  /**
   * The claim this job holds on its rows while it sends them (webhook_deliveries.claim):
   * a rerun of the job, or the job it hands its rest to, takes them back; a duplicate
   * job (the reconciler's, a replay's) has another and cannot.
   */
  claim: z.string().min(1).max(64),
  /** Events of messages sent high: the job, its retries and its rest go on webhook.deliver.high. */
  high: z.literal(true).optional(),
  /** Events of bulk messages (batch items): the job, its retries and its rest go on webhook.deliver.bulk. */
  bulk: z.literal(true).optional(),
});
export type WebhookDeliverJob = z.infer<typeof WebhookDeliverJob>;

/**
 * smpp.dlr-out: a status change of a message that a customer submitted over SMPP,
 * written by the outbox relay for the smpp-server to turn into a deliver_sm receipt.
 * The job id is the event id.
 */
export const SmppReceiptJob = z.object({
  eventId: z.string().startsWith("evt_"),
  accountId: z.string().startsWith("acc_"),
  messageId: z.string().startsWith("msg_"),
  status: z.enum(["scheduled", "queued", "sent", "delivered", "failed", "canceled"]),
  previousStatus: z.string().nullable(),
  sequence: z.number().int().positive(),
  errorCode: z.string().nullable(),
  /** When the status changed (ISO 8601). */
  occurredAt: z.string(),
});
export type SmppReceiptJob = z.infer<typeof SmppReceiptJob>;
