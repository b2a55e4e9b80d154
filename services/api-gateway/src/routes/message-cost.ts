import type { Request } from "express";

/**
 * Messages a request would count against the daily quota, read from the raw body
 * before validation (the rate-limit check runs first); unaccepted ones are
 * refunded when the response is sent.
 */
export function messagesCostOf(req: Request): number {
  if (req.method !== "POST") return 0;
  if (req.path === "/v1/sms/send" || req.path === "/v1/otp/send") return 1;
  if (req.path === "/v1/sms/bulk") {
    const messages = (req.body as { messages?: unknown } | undefined)?.messages;
    return Array.isArray(messages) ? messages.length : 0;
  }
  return 0;
}
