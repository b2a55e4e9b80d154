import type { RequestHandler } from "express";
import { newId } from "@sms/ids";

/** Gives every request a `req_` id, echoed in X-Request-Id and carried by its logs and error bodies. */
export const assignRequestId: RequestHandler = (_req, res, next) => {
  const requestId = newId("req");
  res.locals.requestId = requestId;
  res.setHeader("X-Request-Id", requestId);
  next();
};
