import type { RequestHandler, Router } from "express";
import type { OtpService } from "@sms/otp";
import { authOf, requirePermission } from "../http/auth";
import { parseOrThrow } from "../http/validate";
import { OtpIdParam, SendOtpRequest, VerifyOtpRequest } from "../schemas/otp";
import { strictRouter } from "../http/strict-router";

/** POST /v1/otp/send, POST /v1/otp/verify, GET /v1/otp/{otp_id}: answered synchronously by @sms/otp. */
export function otpRoutes(otp: OtpService, idempotent: RequestHandler): Router {
  const router = strictRouter();

  router.post("/v1/otp/send", requirePermission("otp:send"), idempotent, async (req, res) => {
    const body = parseOrThrow(SendOtpRequest, req.body);
    const { account, senderIds, allowedCountries } = authOf(res);
    const sent = await otp.send(account.id, body, {
      senderIds,
      allowedCountries,
    });
    res.status(201).json(sent);
  });

  router.post("/v1/otp/verify", requirePermission("otp:verify"), idempotent, async (req, res) => {
    const body = parseOrThrow(VerifyOtpRequest, req.body);
    res.json(await otp.verify(authOf(res).account.id, body.otp_id, body.code));
  });

  router.get("/v1/otp/:otp_id", requirePermission("otp:verify"), async (req, res) => {
    const { otp_id } = parseOrThrow(OtpIdParam, req.params);
    res.json(await otp.get(authOf(res).account.id, otp_id));
  });

  return router;
}
