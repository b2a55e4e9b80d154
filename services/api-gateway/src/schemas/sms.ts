import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "@sms/webhooks";
import { Encoding, MessageErrorCode, MessageStatus, text as safeText } from "./common";

const phone = safeText()
  .max(32)
  .meta({ description: "E.164 number with a leading +", example: "+14155550100" });
const text = safeText().max(20000).meta({
  description: "The text; long texts are sent as concatenated segments",
  example: "Your order has shipped",
});
const senderId = safeText().min(1).max(16).meta({ description: "An authorized sender id", example: "ACME" });
export const Priority = z.enum(["high", "normal", "bulk"]).meta({
  id: "Priority",
  description:
    "Dispatch class: high (OTPs and urgent sends), normal, bulk. Classes are weighted, never strict: a lower class is slowed, never stopped. The account's messages per second apply to every class.",
});

const clientRef = safeText().min(1).max(128).meta({
  description:
    "Your own reference (1 to 128 characters): echoed in GET, in lists (filter client_ref) and in every webhook",
  example: "order-4711",
});

const validityPeriod = z.number().int().min(60).max(259_200).meta({
  description:
    "Seconds the message may wait for a carrier, from when it is due (60 to 259,200 = 72 h; default 48 h). Not with a carrier by then, it fails with error_code EXPIRED and its credits come back; the carrier is given what is left of it. A message sent whose final receipt has not come by then plus a grace (1 h) fails RECEIPT_TIMEOUT.",
  example: 3600,
});

export const SendSmsRequest = z
  .strictObject({
    to: phone,
    message: text,
    sender_id: senderId,
    scheduled_at: safeText().max(40).nullish().meta({
      description: "ISO 8601 UTC time to send at; omit to send now",
      example: "2030-01-31T09:30:00Z",
    }),
    priority: Priority.optional().meta({ description: "Dispatch class; default normal" }),
    client_ref: clientRef.optional(),
    validity_period: validityPeriod.optional(),
  })
  .meta({ id: "SendSmsRequest" });
export type SendSmsRequest = z.infer<typeof SendSmsRequest>;

export const SendSmsResponse = z
  .object({
    message_id: z.string(),
    status: z.enum(["queued", "scheduled"]),
    to: z.string(),
    sender_id: z.string(),
    segments: z.number().int(),
    encoding: Encoding,
    scheduled_at: z.string().nullable(),
    created_at: z.string(),
    priority: Priority,
    client_ref: z.string().nullable(),
    expires_at: z.string().meta({ description: "When its validity ends (ISO 8601): see validity_period" }),
  })
  .meta({ id: "SendSmsResponse" });

export const BulkSmsRequest = z
  .strictObject({
    sender_id: senderId,
    priority: Priority.optional().meta({
      description: "Dispatch class of every item that names none; default bulk",
    }),
    client_ref: clientRef.optional().meta({ description: "The client_ref of every item that names none" }),
    validity_period: validityPeriod
      .optional()
      .meta({ description: "The validity_period (seconds) of every item that names none; default 48 h" }),
    messages: z
      .array(
        z.strictObject({
          to: safeText().max(32),
          message: text,
          priority: Priority.optional(),
          client_ref: clientRef.optional(),
          validity_period: validityPeriod.optional(),
        }),
      )
      .min(1)
      .meta({ description: "1 to the account's limit (10,000 by default)" }),
  })
  .meta({ id: "BulkSmsRequest" });
export type BulkSmsRequest = z.infer<typeof BulkSmsRequest>;

export const BulkSmsResponse = z
  .object({
    batch_id: z.string(),
    accepted: z.number().int(),
    rejected: z.number().int(),
    messages: z.array(
      z.object({
        index: z.number().int(),
        message_id: z.string(),
        to: z.string(),
        status: z.literal("queued"),
        segments: z.number().int(),
        client_ref: z.string().nullable(),
      }),
    ),
    errors: z.array(
      z.object({
        index: z.number().int(),
        to: z.unknown(),
        error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
      }),
    ),
  })
  .meta({ id: "BulkSmsResponse" });

export const StatusChange = z
  .object({
    status: MessageStatus,
    previous_status: z.union([MessageStatus, z.null()]),
    sequence: z.number().int(),
    at: z.string(),
    error_code: MessageErrorCode,
  })
  .meta({ id: "StatusChange" });

export const MessageView = z
  .object({
    message_id: z.string(),
    status: MessageStatus,
    to: z.string(),
    sender_id: z.string(),
    message: z.string(),
    segments: z.number().int(),
    encoding: Encoding,
    credits: z.number().int(),
    source: z.enum(["api", "smpp", "otp"]),
    priority: Priority,
    batch_id: z.string().nullable(),
    client_ref: z.string().nullable().meta({ description: "Your own reference, as sent" }),
    scheduled_at: z.string().nullable(),
    expires_at: z.string().nullable().meta({
      description: "When its validity ends (see validity_period); null for messages older than validity",
    }),
    created_at: z.string(),
    updated_at: z.string(),
    sent_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    failed_at: z.string().nullable(),
    canceled_at: z.string().nullable(),
    error_code: MessageErrorCode,
    error_message: z.string().nullable(),
    otp: z
      .object({
        otp_id: z.string(),
        status: z.enum(["pending", "verified", "expired", "failed", "canceled"]),
      })
      .nullable()
      .meta({ description: "For an OTP's SMS: the OTP and its status (never the code)" }),
  })
  .meta({ id: "Message" });

export const MessageWithHistory = MessageView.extend({
  history: z.array(StatusChange),
  smpp_part: z
    .object({
      id: z.string().meta({ description: "The id submit_sm_resp gave this part" }),
      index: z.number().int().meta({ description: "Its place in the message, from 1" }),
      total: z.number().int(),
    })
    .optional()
    .meta({
      description:
        "Present when the message was fetched by the id of one of its SMPP parts: a concatenated submit gets one id per part, and each answers the reassembled message",
    }),
}).meta({
  id: "MessageWithHistory",
});

export const ListMessagesQuery = z.strictObject({
  status: MessageStatus.optional(),
  to: safeText().max(32).optional(),
  batch_id: safeText().max(40).optional(),
  client_ref: safeText()
    .min(1)
    .max(128)
    .optional()
    .meta({ description: "Only messages sent with this client_ref" }),
  from: z.iso.datetime({ offset: true }).optional().meta({ description: "Created at or after (ISO 8601)" }),
  until: z.iso.datetime({ offset: true }).optional().meta({ description: "Created before (ISO 8601)" }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: safeText().max(200).optional().meta({ description: "next_cursor of the previous page" }),
});
export type ListMessagesQuery = z.infer<typeof ListMessagesQuery>;

export const ExportMessagesQuery = z.strictObject({
  since: z.iso.datetime({ offset: true }).meta({
    description: "Messages created at or after this time (ISO 8601)",
    example: "2026-11-01T00:00:00Z",
  }),
  until: z.iso.datetime({ offset: true }).meta({
    description: "Messages created before this time (ISO 8601); at most 31 days after since",
    example: "2026-11-08T00:00:00Z",
  }),
});
export type ExportMessagesQuery = z.infer<typeof ExportMessagesQuery>;

export const MessageList = z
  .object({ data: z.array(MessageView), next_cursor: z.string().nullable() })
  .meta({ id: "MessageList" });

export const BatchIdParam = z.object({
  batch_id: z.string().max(40).meta({ example: "bat_01JD6Z8Q4G2M0F3T6S8V9W0X1Z" }),
});

export const BatchView = z
  .object({
    batch_id: z.string(),
    sender_id: z.string(),
    total: z.number().int(),
    accepted: z.number().int(),
    rejected: z.number().int(),
    created_at: z.string(),
    counts: z.record(MessageStatus, z.number().int()),
  })
  .meta({ id: "Batch" });

const AccountWebhook = z.object({
  url: z.string(),
  enabled: z.boolean(),
  event_types: z.array(z.enum(WEBHOOK_EVENT_TYPES)).meta({
    description:
      "The events POSTed to the endpoint, spelled out (every type when all_events is true). webhook.test is always sent.",
  }),
  all_events: z.boolean().meta({
    description: "True when the endpoint receives every message.* event, including kinds added later",
  }),
});

export const AccountView = z
  .object({
    account_id: z.string(),
    name: z.string(),
    status: z.enum(["active", "suspended"]),
    balance: z.number().int(),
    limits: z.object({
      requests_per_second: z.number().int(),
      messages_per_second: z.number().int(),
      daily_quota: z.number().int(),
      daily_quota_used: z.number().int().meta({
        description: "Messages accepted today (UTC) against daily_quota; the count starts again at 00:00 UTC",
      }),
      max_batch_size: z.number().int(),
      max_segments: z.number().int(),
    }),
    sender_ids: z.array(z.string()),
    inbound_numbers: z.array(z.string()).meta({
      description:
        "The numbers (E.164) and short codes this account receives inbound messages on, sorted (GET /v1/inbound)",
    }),
    allowed_countries: z.array(z.string()).nullable().meta({
      description:
        "ISO 3166-1 alpha-2 codes of the destination countries this account may send to (COUNTRY_NOT_ALLOWED otherwise); null: every country",
    }),
    webhook: AccountWebhook.nullable().meta({ description: "The webhook endpoint; null when none is set" }),
    auto_replies: z
      .object({
        stop: z.string().nullable(),
        start: z.string().nullable(),
        help: z.string().nullable(),
      })
      .meta({
        description:
          "The texts sent back to a STOP, START or HELP keyword from the number that received it (set by our team); null: no reply (the default)",
      }),
  })
  .meta({ id: "Account" });
