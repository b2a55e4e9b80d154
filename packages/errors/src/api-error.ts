/** The documented error codes (docs/api.md#errors) and the HTTP status each one answers with. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  INVALID_PHONE: 400,
  MESSAGE_TOO_LONG: 400,
  INVALID_SCHEDULE: 400,
  BATCH_TOO_LARGE: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 402,
  INVALID_SENDER: 403,
  COUNTRY_NOT_ALLOWED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RECIPIENT_OPTED_OUT: 422,
  IDEMPOTENCY_CONFLICT: 409,
  NOT_CANCELABLE: 409,
  OTP_ALREADY_VERIFIED: 409,
  OTP_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  OTP_MAX_ATTEMPTS: 429,
  OTP_SEND_LIMIT: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  field: string;
  code: ErrorCode;
  message: string;
}

/** An error that becomes the documented error body `{error: {code, message, field, details}}`. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { field?: string; details?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  get field(): string | undefined {
    return this.options.field;
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string; details?: FieldError[]; request_id: string };
}

/** The JSON body of an error response. */
export function toErrorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.options.field !== undefined ? { field: error.options.field } : {}),
      ...(error.options.details?.length ? { details: error.options.details } : {}),
      request_id: requestId,
    },
  };
}

/** True for errors that mean PostgreSQL or Redis could not be reached (answered as 503). */
export function isDependencyOutage(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  const text = `${String(name)} ${String(message)}`;
  if (
    typeof code === "string" &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|57P01|57P02|57P03|08\w{3}|53300|P1001|P1002|P1017|P2024)$/.test(
      code,
    )
  )
    return true;
  return /Connection is closed|Command timed out|ECONNREFUSED|MaxRetriesPerRequestError|Stream isn't writeable|enableOfflineQueue|Connection terminated|timeout exceeded when trying to connect|DatabaseNotReachable|Can't reach database/i.test(
    text,
  );
}
