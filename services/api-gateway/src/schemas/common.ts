import { z } from "zod";

export const ErrorResponse = z
  .object({
    error: z.object({
      code: z.string().meta({ example: "INVALID_PHONE" }),
      message: z.string(),
      field: z.string().optional(),
      details: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })).optional(),
      request_id: z.string().meta({ example: "req_01JD6Z8Q4G2M0F3T6S8V9W0X1Y" }),
    }),
  })
  .meta({ id: "Error" });

export const MessageStatus = z
  .enum(["scheduled", "queued", "sent", "delivered", "failed", "canceled"])
  .meta({ id: "MessageStatus" });
/** Why a message failed (docs/decisions.md, "Error codes of failed messages"); null unless it did. */
export const MessageErrorCode = z.string().nullable().meta({
  id: "MessageErrorCode",
  description:
    "Why the message failed; null unless it did. EXPIRED: its validity_period ended before it reached a carrier (its credits come back), or the carrier's receipt says it expired there. RECEIPT_TIMEOUT: sent, but no final delivery receipt came within its validity plus the grace (1 h by default); no credits back. From receipts: UNDELIVERABLE, REJECTED, DELETED. From dispatch: NO_ROUTE, CARRIER_TIMEOUT, ENCODING_UNSUPPORTED, SMPP_ESME_… (the carrier refused it). For an OTP's SMS: OTP_EXPIRED, OTP_MAX_ATTEMPTS, OTP_ALREADY_VERIFIED.",
  example: "RECEIPT_TIMEOUT",
});
export const Encoding = z.enum(["GSM-7", "UCS-2"]).meta({ id: "Encoding" });

export const MessageIdParam = z.object({
  message_id: z.string().meta({ example: "msg_01JD6Z8Q4G2M0F3T6S8V9W0X1Y" }),
});

/**
 * A string PostgreSQL can store and a handset can show: well-formed Unicode (no lone
 * surrogates, which would be silently replaced by U+FFFD) and no NUL (text columns reject it).
 */
export const text = () =>
  z
    .string()
    .refine((value) => value.isWellFormed(), { message: "contains invalid Unicode (a lone surrogate)" })
    .refine((value) => !value.includes("\u0000"), { message: "contains a NUL character" });
