import type { ErrorRequestHandler, RequestHandler } from "express";
import { ApiError, isDependencyOutage, toErrorBody } from "@sms/errors";
import { newId } from "@sms/ids";
import type { Logger } from "@sms/logger";

/** Gives every request a `req_` id, echoed in X-Request-Id and in error bodies. */
export const assignRequestId: RequestHandler = (_req, res, next) => {
  res.locals.requestId = newId("req");
  res.setHeader("X-Request-Id", res.locals.requestId);
  next();
};

/** Turns any error into the documented body `{error: {code, message, request_id}}`; never leaks internals. */
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

export const notFound: RequestHandler = (_req, _res, next) =>
  next(new ApiError("NOT_FOUND", "No such endpoint."));

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const type = (error as { type?: string } | null)?.type;
  if (type === "entity.too.large")
    return new ApiError("PAYLOAD_TOO_LARGE", "A receipt body is at most 16 KiB.");
  if (type === "entity.parse.failed")
    return new ApiError("INVALID_JSON", "The request body is not valid JSON.");
  if (type === "encoding.unsupported" || type === "charset.unsupported")
    return new ApiError("UNSUPPORTED_MEDIA_TYPE", "The body must be UTF-8 JSON.");
  if (type === "request.aborted") return new ApiError("VALIDATION_ERROR", "The request body was cut off.");
  if (isDependencyOutage(error))
    return new ApiError("SERVICE_UNAVAILABLE", "The receipt was not stored; send it again shortly.", {
      retryAfterSeconds: 1,
    });
  return new ApiError("INTERNAL", "An internal error occurred; it has been logged with this request id.");
}
