import type { ErrorRequestHandler, RequestHandler } from "express";
import { ApiError, isDependencyOutage, toErrorBody } from "../api-error";
import type { Logger } from "@sms/logger";

/** What a service tells its clients in the errors whose wording depends on the service. */
export interface ErrorWording {
  /** For 413. @defaultValue "The request body is larger than 1 MiB; split a bulk request into several." */
  tooLarge?: string;
  /** For 503. @defaultValue "A dependency is unavailable; nothing was accepted. Retry shortly." */
  unavailable?: string;
}

/** Turns any error into the documented error body; never leaks internals. */
export function errorHandler(logger: Logger, wording: ErrorWording = {}): ErrorRequestHandler {
  const tooLarge =
    wording.tooLarge ?? "The request body is larger than 1 MiB; split a bulk request into several.";
  const unavailable =
    wording.unavailable ?? "A dependency is unavailable; nothing was accepted. Retry shortly.";
  return (error, _req, res, _next) => {
    const requestId: string = res.locals.requestId ?? "req_unknown";
    const apiError = toApiError(error, tooLarge, unavailable);
    if (apiError.code === "INTERNAL") logger.error("unhandled error", { request_id: requestId, error });
    else if (apiError.code === "SERVICE_UNAVAILABLE")
      logger.warn("dependency unavailable", { request_id: requestId, error: String(error) });
    if (apiError.options.retryAfterSeconds !== undefined)
      res.setHeader("Retry-After", String(Math.max(1, Math.ceil(apiError.options.retryAfterSeconds))));
    if (res.headersSent) return;
    res.status(apiError.status).json(toErrorBody(apiError, requestId));
  };
}

function toApiError(error: unknown, tooLarge: string, unavailable: string): ApiError {
  if (error instanceof ApiError) return error;
  const bodyParserType = (error as { type?: string } | null)?.type;
  if (bodyParserType === "entity.too.large") return new ApiError("PAYLOAD_TOO_LARGE", tooLarge);
  if (bodyParserType === "entity.parse.failed")
    return new ApiError("INVALID_JSON", "The request body is not valid JSON.");
  if (bodyParserType === "encoding.unsupported" || bodyParserType === "charset.unsupported")
    return new ApiError("UNSUPPORTED_MEDIA_TYPE", "The body must be UTF-8 JSON.");
  if (bodyParserType === "request.aborted")
    return new ApiError("VALIDATION_ERROR", "The request body was cut off.");
  // Express and its body parser mark client errors with a 4xx status (bad percent-encoding
  // in a path, a body that is not the gzip it claims, …): a client error, never a 500.
  const status =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    if (status === 413) return new ApiError("PAYLOAD_TOO_LARGE", tooLarge);
    if (status === 415)
      return new ApiError(
        "UNSUPPORTED_MEDIA_TYPE",
        "Send the body as UTF-8 JSON with the header Content-Type: application/json.",
      );
    return new ApiError("VALIDATION_ERROR", "The request is malformed (its URL, headers or body encoding).");
  }
  if (isDependencyOutage(error))
    return new ApiError("SERVICE_UNAVAILABLE", unavailable, { retryAfterSeconds: 1 });
  return new ApiError("INTERNAL", "An internal error occurred; it has been logged with this request id.");
}

export const notFound: RequestHandler = (_req, _res, next) =>
  next(new ApiError("NOT_FOUND", "No such endpoint."));
