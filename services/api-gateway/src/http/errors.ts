import type { ErrorRequestHandler, RequestHandler } from "express";
import { ApiError, isDependencyOutage, toErrorBody } from "@sms/errors";
import type { Logger } from "@sms/logger";

/** Turns any error into the documented error body; never leaks internals. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const requestId: string = res.locals.requestId ?? "req_unknown";
    const apiError = toApiError(error);
    if (apiError.code === "INTERNAL") logger.error("unhandled error", { request_id: requestId, error });
    else if (apiError.code === "SERVICE_UNAVAILABLE")
      logger.warn("dependency unavailable", { request_id: requestId, error: String(error) });
    if (apiError.options.retryAfterSeconds !== undefined)
      res.setHeader("Retry-After", String(Math.max(1, Math.ceil(apiError.options.retryAfterSeconds))));
    if (res.headersSent) return;
    res.status(apiError.status).json(toErrorBody(apiError, requestId));
  };
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const bodyParserType = (error as { type?: string } | null)?.type;
  if (bodyParserType === "entity.too.large")
    return new ApiError(
      "PAYLOAD_TOO_LARGE",
      "The request body is larger than 1 MiB; split a bulk request into several.",
    );
  if (bodyParserType === "entity.parse.failed")
    return new ApiError("INVALID_JSON", "The request body is not valid JSON.");
  if (bodyParserType === "encoding.unsupported" || bodyParserType === "charset.unsupported")
    return new ApiError("UNSUPPORTED_MEDIA_TYPE", "The body must be UTF-8 JSON.");
  if (bodyParserType === "request.aborted")
    return new ApiError("VALIDATION_ERROR", "The request body was cut off.");
  if (isDependencyOutage(error))
    return new ApiError(
      "SERVICE_UNAVAILABLE",
      "A dependency is unavailable; nothing was accepted. Retry shortly.",
      { retryAfterSeconds: 1 },
    );
  return new ApiError("INTERNAL", "An internal error occurred; it has been logged with this request id.");
}

export const notFound: RequestHandler = (_req, _res, next) =>
  next(new ApiError("NOT_FOUND", "No such endpoint."));
