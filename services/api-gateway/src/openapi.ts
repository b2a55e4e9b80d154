import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { ERROR_STATUS } from "@sms/errors";
import { ErrorResponse, MessageIdParam } from "./schemas/common";
import {
  OtpIdParam,
  OtpView,
  SendOtpRequest,
  SendOtpResponse,
  VerifyOtpRequest,
  VerifyOtpResponse,
} from "./schemas/otp";
import {
  AccountView,
  BatchView,
  BulkSmsRequest,
  BulkSmsResponse,
  ListMessagesQuery,
  MessageList,
  MessageView,
  MessageWithHistory,
  SendSmsRequest,
  SendSmsResponse,
} from "./schemas/sms";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      json(
        ErrorResponse,
        `Error: ${Object.entries(ERROR_STATUS)
          .filter(([, s]) => s === status)
          .map(([code]) => code)
          .join(", ")}`,
      ),
    ]),
  );
const common = [401, 403, 429, 500, 503];

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function buildOpenApiDocument(serverUrl = "/") {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "API key from the dashboard",
  });
  const idempotencyHeader = z.object({
    "idempotency-key": z
      .string()
      .max(255)
      .optional()
      .meta({ description: "Replays the first response for 24 h" }),
  });
  registry.registerPath({
    method: "post",
    path: "/v1/sms/send",
    summary: "Send one SMS, now or at scheduled_at",
    tags: ["SMS"],
    request: {
      headers: idempotencyHeader,
      body: { content: { "application/json": { schema: SendSmsRequest } }, required: true },
    },
    responses: {
      202: json(SendSmsResponse, "Accepted: queued or scheduled"),
      ...errors(400, 402, 409, 413, 415, ...common),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/sms/bulk",
    summary: "Send many SMS with one sender id; invalid items are reported, valid ones accepted",
    tags: ["SMS"],
    request: {
      headers: idempotencyHeader,
      body: { content: { "application/json": { schema: BulkSmsRequest } }, required: true },
    },
    responses: {
      202: json(BulkSmsResponse, "Accepted items and per-item errors"),
      ...errors(400, 402, 409, 413, 415, ...common),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/sms",
    summary: "List messages, newest first",
    tags: ["SMS"],
    request: { query: ListMessagesQuery },
    responses: { 200: json(MessageList, "A page of messages"), ...errors(400, ...common) },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/sms/{message_id}",
    summary: "A message with its status history",
    tags: ["SMS"],
    request: { params: MessageIdParam },
    responses: { 200: json(MessageWithHistory, "The message"), ...errors(404, ...common) },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/sms/{message_id}/cancel",
    summary: "Cancel a scheduled message (its credits are returned)",
    tags: ["SMS"],
    request: { params: MessageIdParam },
    responses: { 200: json(MessageView, "Canceled"), ...errors(404, 409, ...common) },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/sms/bulk/{batch_id}",
    summary: "Counts per status of a bulk batch",
    tags: ["SMS"],
    request: { params: z.object({ batch_id: z.string() }) },
    responses: { 200: json(BatchView, "The batch"), ...errors(404, ...common) },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/otp/send",
    summary: "Send a one-time code by SMS; a newer OTP to the same phone cancels the pending one",
    tags: ["OTP"],
    request: {
      headers: idempotencyHeader,
      body: { content: { "application/json": { schema: SendOtpRequest } }, required: true },
    },
    responses: {
      201: json(SendOtpResponse, "The OTP is pending and its SMS queued"),
      ...errors(400, 402, 409, 413, 415, ...common),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/otp/verify",
    summary: "Check a code: 200 with verified true or false; each OTP takes 5 wrong codes, and works once",
    tags: ["OTP"],
    request: {
      headers: idempotencyHeader,
      body: { content: { "application/json": { schema: VerifyOtpRequest } }, required: true },
    },
    responses: {
      200: json(VerifyOtpResponse, "The code was checked"),
      ...errors(400, 404, 409, 410, 413, 415, ...common),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/otp/{otp_id}",
    summary: "The status of an OTP (never its code)",
    tags: ["OTP"],
    request: { params: OtpIdParam },
    responses: { 200: json(OtpView, "The OTP"), ...errors(404, ...common) },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/account",
    summary: "Balance, limits and authorized sender ids",
    tags: ["Account"],
    responses: { 200: json(AccountView, "The account"), ...errors(...common) },
  });
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: "3.1.0",
    info: {
      title: "SMS platform API",
      version: "1.0.0",
      description:
        "Send SMS and bulk SMS, schedule, read statuses, and send and verify one-time codes. Errors share one shape: {error: {code, message, field, request_id}}.",
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
  });
}
