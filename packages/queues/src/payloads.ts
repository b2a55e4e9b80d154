import { z } from "zod";

/** sms.dispatch: the worker loads everything else from the database, the source of truth. */
export const DispatchJob = z.object({ messageId: z.string().startsWith("msg_") });
export type DispatchJob = z.infer<typeof DispatchJob>;

/**
 * webhook.deliver: one delivery (one event for one account's endpoint). The body and
 * the attempt history live in webhook_deliveries; the job only says which one.
 */
export const WebhookDeliverJob = z.object({
  eventId: z.string().startsWith("evt_"),
  accountId: z.string().startsWith("acc_"),
  /** Attempts already made when this job was queued (a replay starts the schedule again from here). */
  baseAttempt: z.number().int().nonnegative().optional(),
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
