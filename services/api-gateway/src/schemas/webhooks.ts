import { z } from "zod";
import { MessageErrorCode, MessageStatus } from "./common";

/** The body POSTed for a status change (docs/webhooks.md#payload): never the message text. */
export const MessageStatusEvent = z
  .object({
    event: z.enum(["message.queued", "message.sent", "message.delivered", "message.failed"]),
    message_id: z.string(),
    timestamp: z.string().meta({ description: "When the status changed (ISO 8601)" }),
    data: z.object({
      to: z.string(),
      status: MessageStatus,
      sender_id: z.string().nullable(),
      segments: z.number().int().nullable(),
      error_code: MessageErrorCode,
      error_message: z.string().nullable(),
      delivered_at: z.string().nullable(),
      sent_at: z.string().nullable(),
      sequence: z
        .number()
        .int()
        .meta({ description: "Grows per message: drop an event older than one seen" }),
      previous_status: z.union([MessageStatus, z.null()]),
      batch_id: z.string().nullable(),
      otp_id: z.string().nullable(),
      smpp_part_ids: z.array(z.string()).nullable().meta({
        description:
          "For a message an SMPP customer submitted in parts: the id each submit_sm_resp gave, in part order (each also answers GET /v1/sms/{id}); null otherwise",
      }),
      client_ref: z
        .string()
        .nullable()
        .meta({ description: "Your own reference for the message, as sent; null when none" }),
    }),
  })
  .meta({ id: "MessageStatusEvent" });

/** The body POSTed for an inbound message (accepted ahead of inbound SMS: docs/decisions.md#webhook-event-types). */
export const MessageReceivedEvent = z
  .object({
    event: z.literal("message.received"),
    message_id: z.string().meta({ description: "The inbound message's in_ id" }),
    timestamp: z.string(),
    data: z.object({
      from: z.string(),
      to: z.string().meta({ description: "The account's number or short code" }),
      text: z.string(),
      encoding: z.enum(["GSM-7", "UCS-2"]),
      segments: z.number().int(),
      received_at: z.string(),
    }),
  })
  .meta({ id: "MessageReceivedEvent" });

/** The body of a test delivery, sent when the endpoint is set or on request. */
export const WebhookTestEvent = z
  .object({
    event: z.literal("webhook.test"),
    message_id: z.null(),
    timestamp: z.string(),
    data: z.object({ account_id: z.string(), note: z.string() }),
  })
  .meta({ id: "WebhookTestEvent" });
