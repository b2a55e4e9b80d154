import type { Priority } from "@sms/queues";
import { analyzeText } from "@sms/sms-encoding";
import { ApiError } from "@sms/errors";
import { newMessageId } from "@sms/ids";
import { DEFAULT_VALIDITY_SECONDS, VALIDITY_MAX_SECONDS, VALIDITY_MIN_SECONDS } from "@sms/message-state";
import { parseDestination } from "./phone";
import { parseSchedule } from "./schedule";

/** The account on whose behalf a message is accepted, as auth resolved it. */
export interface AcceptingAccount {
  id: string;
  /** Sender ids the account may use, exactly as authorized. */
  senderIds: ReadonlySet<string>;
  /**
   * Destination countries (ISO 3166-1 alpha-2) the account may send to; empty or absent: all.
   * A number of no country (+800 …) is allowed only when this is empty.
   */
  allowedCountries?: ReadonlySet<string>;
}

export type MessageSource = "api" | "smpp" | "otp";

export interface MessageDraft {
  to: string;
  message: string;
  senderId: string;
  scheduledAt?: string | null;
  /** What is stored and reported instead of the text (OTP messages are redacted: docs/decisions.md#otp). */
  storedBody?: string;
  /** The real text sealed for the dispatcher, when storedBody is not it (see @sms/otp). */
  sealedBody?: string;
  /** The OTP whose code this message carries. */
  otpId?: string;
  /** Dispatch class; @defaultValue "normal" ("bulk" for a batch item, always "high" for an OTP) */
  priority?: Priority;
  /** The customer's own reference (docs/decisions.md#client-ref), echoed in GET, lists and every webhook. */
  clientRef?: string | null;
  /** Seconds the message stays valid from when it is due (REST validity_period, docs/messages.md#validity); @defaultValue the deployment's default */
  validityPeriod?: number | null;
  /** When its validity ends, given as an instant (SMPP validity_period, an OTP's expiry); capped at the longest validity. */
  validUntil?: Date | null;
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
  /** The customer's own reference; absent is none. */
  clientRef?: string | null;
  encoding: "GSM7" | "UCS2";
  segments: number;
  priority: Priority;
  credits: number;
  status: "queued" | "scheduled";
  scheduledAt: Date | null;
  /** When its validity ends (docs/messages.md#validity): not with a carrier by then, it fails EXPIRED. */
  expiresAt: Date;
  createdAt: Date;
}

export interface PrepareOptions {
  /** Most segments one message may have (docs/messages.md#segments-and-encoding) @defaultValue 10 */
  maxSegments: number;
  /** Credits charged per segment (docs/decisions.md#delivery-pipeline) @defaultValue 1 */
  creditsPerSegment: number;
  /** Validity of a message that names none, in seconds (48 h: docs/messages.md#validity) @defaultValue 172800 */
  defaultValiditySeconds?: number;
}

export { VALIDITY_MIN_SECONDS, VALIDITY_MAX_SECONDS, DEFAULT_VALIDITY_SECONDS };

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

/** The E.164 form of `value`, or INVALID_PHONE, or COUNTRY_NOT_ALLOWED outside the account's countries. */
export function allowedDestination(account: AcceptingAccount, value: string, field: string): string {
  const { number, country } = parseDestination(value, field);
  const allowed = account.allowedCountries;
  if (allowed && allowed.size > 0 && !(country && allowed.has(country))) {
    throw new ApiError(
      "COUNTRY_NOT_ALLOWED",
      `${field} is a number in ${country ?? "no country"}; this account may send to ${[...allowed].sort().join(", ")} only.`,
      { field },
    );
  }
  return number;
}

/** Validates one draft (phone, length, schedule) and computes its segments and price; throws ApiError. */
export function prepareMessage(
  account: AcceptingAccount,
  draft: MessageDraft,
  context: { source: MessageSource; batchId: string | null; now: Date; fieldPrefix?: string },
  options: PrepareOptions,
): PreparedMessage {
  const prefix = context.fieldPrefix ?? "";
  const to = allowedDestination(account, draft.to, `${prefix}to`);
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
  const expiresAt = validityEnd(draft, scheduledAt ?? context.now, `${prefix}validity_period`, options);
  return {
    id: newMessageId(scheduledAt),
    accountId: account.id,
    batchId: context.batchId,
    source: context.source,
    to,
    senderId: draft.senderId,
    storedBody: draft.storedBody ?? draft.message,
    sealedBody: draft.sealedBody ?? null,
    otpId: draft.otpId ?? null,
    clientRef: checkClientRef(draft.clientRef, `${prefix}client_ref`),
    encoding: analysis.encoding === "GSM-7" ? "GSM7" : "UCS2",
    segments: analysis.segments,
    // An OTP is always high (docs/fairness.md): its code expires in minutes.
    priority: context.source === "otp" ? "high" : (draft.priority ?? (context.batchId ? "bulk" : "normal")),
    credits: analysis.segments * options.creditsPerSegment,
    status: scheduledAt ? "scheduled" : "queued",
    scheduledAt,
    expiresAt,
    createdAt: context.now,
  };
}

/**
 * When a message's validity ends: `validity_period` seconds from when it is due (the
 * deployment's default when absent), or the instant it was given (SMPP, OTP), never later
 * than the longest validity from when it is due (carriers cap it too).
 */
function validityEnd(
  draft: MessageDraft,
  due: Date,
  field: string,
  options: Pick<PrepareOptions, "defaultValiditySeconds">,
): Date {
  const longest = due.getTime() + VALIDITY_MAX_SECONDS * 1000;
  if (draft.validUntil) return new Date(Math.min(draft.validUntil.getTime(), longest));
  const seconds = draft.validityPeriod ?? options.defaultValiditySeconds ?? DEFAULT_VALIDITY_SECONDS;
  if (!Number.isInteger(seconds) || seconds < VALIDITY_MIN_SECONDS || seconds > VALIDITY_MAX_SECONDS) {
    throw new ApiError(
      "VALIDATION_ERROR",
      `${field} must be a whole number of seconds from ${VALIDITY_MIN_SECONDS} to ${VALIDITY_MAX_SECONDS} (72 h).`,
      { field },
    );
  }
  return new Date(due.getTime() + seconds * 1000);
}

/** Most characters of a client_ref (docs/decisions.md#client-ref). */
export const CLIENT_REF_MAX_LENGTH = 128;

function checkClientRef(clientRef: string | null | undefined, field: string): string | null {
  if (clientRef === undefined || clientRef === null) return null;
  if (clientRef.length === 0 || clientRef.length > CLIENT_REF_MAX_LENGTH) {
    throw new ApiError(
      "VALIDATION_ERROR",
      `${field} must be 1 to ${CLIENT_REF_MAX_LENGTH} characters; it has ${clientRef.length}.`,
      { field },
    );
  }
  return clientRef;
}
