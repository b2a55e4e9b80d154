import express, { type Router } from "express";
import type pg from "pg";
import { ApiError } from "@sms/errors";
import type { InboundIntake } from "@sms/carrier-receipts";
import type { Metrics } from "../metrics";
import { requireCarrierInboundToken } from "./carrier-token";
import { readInboundBody } from "./inbound-body";

/**
 * POST /v1/carriers/{carrierId}/inbound for carriers that deliver inbound messages over HTTP
 * (docs/smpp.md#inbound-over-http): stored by the same intake as a deliver_sm (assignment,
 * reassembly, message.received, opt-out keywords), 202 once committed, so a carrier that posts
 * again on anything else never loses one; the same message_id again is not stored twice.
 */
export function inboundRoutes(deps: { pool: pg.Pool; intake: InboundIntake; metrics: Metrics }): Router {
  const router = express.Router();
  router.post(
    "/v1/carriers/:carrierId/inbound",
    requireCarrierInboundToken(deps.pool),
    (req, _res, next) =>
      next(
        req.is("application/json")
          ? undefined
          : new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the inbound message as application/json."),
      ),
    express.json({ limit: "16kb", strict: false }),
    async (req, res) => {
      const piece = readInboundBody(req.body);
      const carrierId = String(req.params.carrierId);
      try {
        const { outcome, message } = await deps.intake.store(carrierId, piece);
        deps.metrics.inboundHttp.inc({ outcome });
        res.status(202).json({ inbound_id: message?.id ?? null, outcome, request_id: res.locals.requestId });
      } catch (error) {
        deps.metrics.inboundHttp.inc({ outcome: "error" });
        throw error;
      }
    },
  );
  return router;
}
