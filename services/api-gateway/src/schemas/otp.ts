import { z } from "zod";
import { text as safeText } from "./common";

const OtpStatus = z
  .enum(["pending", "verified", "expired", "failed", "canceled"])
  .meta({ id: "OtpStatus", description: "failed: too many wrong codes; canceled: replaced by a newer OTP" });

export const SendOtpRequest = z
  .strictObject({
    phone: safeText().max(32).meta({ description: "E.164 number with a leading +", example: "+14155550100" }),
    length: z.number().int().min(4).max(8).default(6).meta({ description: "Digits of the code" }),
    expiry: z.number().int().min(30).max(3600).default(300).meta({ description: "Lifetime in seconds" }),
    template: safeText().min(1).max(1000).optional().meta({
      description:
        "The SMS text, with {code} exactly once; default: Your verification code is {code}. Under the shared OTP sender (no sender_id) the rendered text must fit one segment (160 GSM-7 or 70 UCS-2 characters)",
      example: "Your Acme code is {code}",
    }),
    sender_id: safeText().min(1).max(16).optional().meta({
      description:
        "One of the account's authorized sender ids (INVALID_SENDER otherwise); default: the platform's shared OTP sender",
      example: "ACME",
    }),
  })
  .meta({ id: "SendOtpRequest" });
export type SendOtpRequest = z.infer<typeof SendOtpRequest>;

export const SendOtpResponse = z
  .object({
    otp_id: z.string(),
    status: z.literal("pending"),
    phone: z.string(),
    length: z.number().int(),
    expires_at: z.string(),
    message_id: z.string(),
  })
  .meta({ id: "SendOtpResponse" });

export const VerifyOtpRequest = z
  .strictObject({
    otp_id: safeText().max(40).meta({ example: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y" }),
    code: z
      .string()
      .regex(/^\d{1,8}$/, "must be 1 to 8 digits")
      .meta({ description: "The code the user typed", example: "123456" }),
  })
  .meta({ id: "VerifyOtpRequest" });
export type VerifyOtpRequest = z.infer<typeof VerifyOtpRequest>;

export const VerifyOtpResponse = z
  .object({
    otp_id: z.string(),
    verified: z.boolean(),
    status: OtpStatus,
    attempts_remaining: z.number().int(),
  })
  .meta({ id: "VerifyOtpResponse" });

export const OtpView = z
  .object({
    otp_id: z.string(),
    status: OtpStatus,
    phone: z.string(),
    length: z.number().int(),
    attempts_remaining: z.number().int(),
    expires_at: z.string(),
    verified_at: z.string().nullable(),
    created_at: z.string(),
    message_id: z.string(),
  })
  .meta({ id: "Otp" });

export const OtpIdParam = z.object({
  otp_id: z.string().meta({ example: "otp_01JD6Z8Q4G2M0F3T6S8V9W0X1Y" }),
});
