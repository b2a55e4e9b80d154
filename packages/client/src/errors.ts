import type { components } from "./generated/schema";

export type ErrorBody = components["schemas"]["Error"]["error"];

/**
 * An error answer of the API (any 4xx/5xx), with the fields of its documented body. `code`
 * is the one to branch on (INVALID_PHONE, INSUFFICIENT_CREDITS, RATE_LIMITED, …).
 */
export class SmsApiError extends Error {
  override readonly name = "SmsApiError";
  readonly code: string;
  readonly field: string | undefined;
  readonly requestId: string | undefined;
  readonly details: ErrorBody["details"];

  constructor(
    readonly status: number,
    body: Partial<ErrorBody>,
    /** Seconds from Retry-After, when the answer had one (429, 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(body.message ?? `HTTP ${status}`);
    this.code = body.code ?? `HTTP_${status}`;
    this.field = body.field;
    this.requestId = body.request_id;
    this.details = body.details;
  }
}

/** The error of a non-2xx response: its JSON error body when it has one (a proxy's HTML page has not). */
export async function toApiError(response: Response, body?: unknown): Promise<SmsApiError> {
  let parsed = body;
  if (parsed === undefined) parsed = await response.json().catch(() => undefined);
  const error = (parsed as { error?: Partial<ErrorBody> } | undefined)?.error;
  return new SmsApiError(
    response.status,
    error && typeof error === "object" ? error : {},
    parseRetryAfter(response.headers.get("retry-after")),
  );
}

/** Retry-After in seconds: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
