import express, { type Router } from "express";
import type pg from "pg";
import { ApiError } from "@sms/errors";
import { applyReceipt } from "@sms/carrier-receipts";
import { INSTANCE_NAME } from "../instance";
import { carrierExists } from "../carriers";
import type { Metrics } from "../metrics";
import { requireBearerToken } from "./bearer-token";
import { readReceiptBody } from "./receipt-body";

/**
 * POST /v1/carriers/{carrierId}/receipts for carriers that post receipts over HTTP:
 * 202 once the receipt is committed (applied, ignored or kept unmatched), so a carrier
 * retrying on anything else never loses one.
 */
export function receiptRoutes(deps: { pool: pg.Pool; token: string; metrics: Metrics }): Router {
  const router = express.Router();
  router.post(
    "/v1/carriers/:carrierId/receipts",
    requireBearerToken(deps.token),
    (req, _res, next) =>
      next(
        req.is("application/json")
          ? undefined
          : new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the receipt as application/json."),
      ),
    express.json({ limit: "16kb", strict: false }),
    async (req, res) => {
      const receipt = readReceiptBody(req.body);
      const carrierId = String(req.params.carrierId);
      if (!(await carrierExists(deps.pool, carrierId)))
        throw new ApiError("NOT_FOUND", "No carrier has this id.");
      const result = await applyReceipt(deps.pool, { carrierId, ...receipt, receivedBy: INSTANCE_NAME });
      deps.metrics.receiptsStored.inc({ source: "http", outcome: result.outcome });
      res
        .status(202)
        .json({ receipt_id: result.receiptId, outcome: result.outcome, request_id: res.locals.requestId });
    },
  );
  return router;
}
