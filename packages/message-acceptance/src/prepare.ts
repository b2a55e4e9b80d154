import { analyzeText } from "@sms/sms-encoding";
import { ApiError } from "@sms/errors";
import { newId } from "@sms/ids";
import { normalizePhone } from "./phone";
import { parseSchedule } from "./schedule";

/** The account on whose behalf a message is accepted, as auth resolved it. */
export interface AcceptingAccount {
  id: string;
  /** Sender ids the account may use, exactly as authorized. */
  senderIds: ReadonlySet<string>;
}

export type MessageSource = "api" | "smpp" | "otp";

export interface MessageDraft {
  to: string;
  message: string;
  senderId: string;
  scheduledAt?: string | null;
  /** What is stored and reported instead of the text (OTP messages are redacted, DESIGN §7). */
  storedBody?: string;
  /** The real text sealed for the dispatcher, when storedBody is not it (see @sms/otp). */
  sealedBody?: string;
  /** The OTP whose code this message carries. */
  otpId?: string;
}

/** A message that passed validation and is ready to be charged and persisted. */
export interface PreparedMessage {
  id: string;
  accountId: string;
  batchId: string | null;
  source: MessageSource;
  to: string;
  senderId: string;
  storedBody: string;
  sealedBody: string | null;
  otpId: string | null;
  encoding: "GSM7" | "UCS2";
  segments: number;
  credits: number;
  status: "queued" | "scheduled";
  scheduledAt: Date | null;
  createdAt: Date;
}

export interface PrepareOptions {
  /** Most segments one message may have; DESIGN §3 @defaultValue 10 */
  maxSegments: number;
  /** Credits charged per segment; DESIGN §4 @defaultValue 1 */
  creditsPerSegment: number;
}

/** Checks the sender id against the account's authorized list (INVALID_SENDER). */
export function assertSenderAuthorized(
  account: AcceptingAccount,
  senderId: string,
  field = "sender_id",
): void {
  if (!account.senderIds.has(senderId)) {
    throw new ApiError(
      "INVALID_SENDER",
      `${field} "${senderId}" is not authorized for this account; use one listed by GET /v1/account.`,
      { field },
    );
  }
}

/** Validates one draft (phone, length, schedule) and computes its segments and price; throws ApiError. */
export function prepareMessage(
  account: AcceptingAccount,
  draft: MessageDraft,
  context: { source: MessageSource; batchId: string | null; now: Date; fieldPrefix?: string },
  options: PrepareOptions,
): PreparedMessage {
  const prefix = context.fieldPrefix ?? "";
  const to = normalizePhone(draft.to, `${prefix}to`);
  if (draft.message.length === 0) {
    throw new ApiError("VALIDATION_ERROR", `${prefix}message must not be empty.`, {
      field: `${prefix}message`,
    });
  }
  const analysis = analyzeText(draft.message);
  if (analysis.segments > options.maxSegments) {
    const limit = analysis.encoding === "GSM-7" ? options.maxSegments * 153 : options.maxSegments * 67;
    throw new ApiError(
      "MESSAGE_TOO_LONG",
      `${prefix}message needs ${analysis.segments} segments; the limit is ${options.maxSegments} (about ${limit} ${analysis.encoding} characters).`,
      { field: `${prefix}message` },
    );
  }
  const scheduledAt = parseSchedule(draft.scheduledAt, context.now);
  return {
    id: newId("msg"),
    accountId: account.id,
    batchId: context.batchId,
    source: context.source,
    to,
    senderId: draft.senderId,
    storedBody: draft.storedBody ?? draft.message,
    sealedBody: draft.sealedBody ?? null,
    otpId: draft.otpId ?? null,
    encoding: analysis.encoding === "GSM-7" ? "GSM7" : "UCS2",
    segments: analysis.segments,
    credits: analysis.segments * options.creditsPerSegment,
    status: scheduledAt ? "scheduled" : "queued",
    scheduledAt,
    createdAt: context.now,
  };
}
