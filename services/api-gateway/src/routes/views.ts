import type { Message, MessageEvent, Otp } from "@sms/db";
import { effectiveStatus } from "@sms/otp";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The public shape of a stored message (never the raw database row). */
export function toMessageView(message: Message & { otp?: Pick<Otp, "id" | "status" | "expiresAt"> | null }) {
  return {
    message_id: message.id,
    status: message.status,
    to: message.to,
    sender_id: message.senderId,
    message: message.body,
    segments: message.segmentCount,
    encoding: message.encoding === "GSM7" ? ("GSM-7" as const) : ("UCS-2" as const),
    credits: message.creditsCharged,
    source: message.source,
    priority: message.priority,
    batch_id: message.batchId,
    client_ref: message.clientRef,
    scheduled_at: iso(message.scheduledAt),
    expires_at: iso(message.expiresAt),
    created_at: message.createdAt.toISOString(),
    updated_at: message.updatedAt.toISOString(),
    sent_at: iso(message.sentAt),
    delivered_at: iso(message.deliveredAt),
    failed_at: iso(message.failedAt),
    canceled_at: iso(message.canceledAt),
    error_code: message.errorCode,
    error_message: message.errorMessage,
    // The OTP this SMS carries, with the OTP's own status (pending, verified, …): never its code.
    otp: message.otp ? { otp_id: message.otp.id, status: effectiveStatus(message.otp) } : null,
  };
}

export function toStatusChange(event: MessageEvent) {
  return {
    status: event.status,
    previous_status: event.previousStatus,
    sequence: event.sequence,
    at: event.occurredAt.toISOString(),
    error_code: event.errorCode,
  };
}
