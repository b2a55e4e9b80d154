import type { ErrorCode } from "@sms/errors";
import { CommandStatus } from "@sms/smpp";

/**
 * The SMPP command_status a submit_sm gets for each error the REST API would answer
 * (docs/smpp.md#status-codes prints this table). Exhaustive by type: a new error
 * code does not compile until it has its status here.
 */
export const SMPP_STATUS_FOR_ERROR: Record<ErrorCode, number> = {
  VALIDATION_ERROR: CommandStatus.ESME_RSUBMITFAIL,
  INVALID_JSON: CommandStatus.ESME_RSUBMITFAIL,
  INVALID_PHONE: CommandStatus.ESME_RINVDSTADR,
  MESSAGE_TOO_LONG: CommandStatus.ESME_RINVMSGLEN,
  INVALID_SCHEDULE: CommandStatus.ESME_RINVSCHED,
  BATCH_TOO_LARGE: CommandStatus.ESME_RSUBMITFAIL,
  UNAUTHORIZED: CommandStatus.ESME_RBINDFAIL,
  INSUFFICIENT_CREDITS: CommandStatus.ESME_RSUBMITFAIL,
  INVALID_SENDER: CommandStatus.ESME_RINVSRCADR,
  COUNTRY_NOT_ALLOWED: CommandStatus.ESME_RINVDSTADR,
  RECIPIENT_OPTED_OUT: CommandStatus.ESME_RINVDSTADR,
  FORBIDDEN: CommandStatus.ESME_RSUBMITFAIL,
  NOT_FOUND: CommandStatus.ESME_RINVMSGID,
  IDEMPOTENCY_CONFLICT: CommandStatus.ESME_RSUBMITFAIL,
  NOT_CANCELABLE: CommandStatus.ESME_RSUBMITFAIL,
  OTP_ALREADY_VERIFIED: CommandStatus.ESME_RSUBMITFAIL,
  OTP_EXPIRED: CommandStatus.ESME_RSUBMITFAIL,
  PAYLOAD_TOO_LARGE: CommandStatus.ESME_RINVMSGLEN,
  UNSUPPORTED_MEDIA_TYPE: CommandStatus.ESME_RSUBMITFAIL,
  RATE_LIMITED: CommandStatus.ESME_RTHROTTLED,
  // Retrying within the day cannot help, but the customer must still back off rather than drop the message.
  QUOTA_EXCEEDED: CommandStatus.ESME_RMSGQFUL,
  OTP_MAX_ATTEMPTS: CommandStatus.ESME_RSUBMITFAIL,
  OTP_SEND_LIMIT: CommandStatus.ESME_RTHROTTLED,
  INTERNAL: CommandStatus.ESME_RSYSERR,
  SERVICE_UNAVAILABLE: CommandStatus.ESME_RSYSERR,
};

/** The status for an error code. */
export function smppStatusFor(code: ErrorCode): number {
  return SMPP_STATUS_FOR_ERROR[code];
}
