import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { ERROR_STATUS } from "@sms/errors";
import { ERROR_EXAMPLE_MESSAGES, examples } from "./openapi-examples";
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
  BatchIdParam,
  BatchView,
  BulkSmsRequest,
  BulkSmsResponse,
  ExportMessagesQuery,
  ListMessagesQuery,
  MessageList,
  MessageView,
  MessageWithHistory,
  SendSmsRequest,
  SendSmsResponse,
} from "./schemas/sms";
import { InboundIdParam, InboundList, InboundView, ListInboundQuery } from "./schemas/inbound";
import {
  AddSuppressionRequest,
  ListSuppressionsQuery,
  SuppressionList,
  SuppressionNumberParam,
  SuppressionView,
} from "./schemas/suppressions";
import { MessageReceivedEvent, MessageStatusEvent, WebhookTestEvent } from "./schemas/webhooks";

const json = <T extends z.ZodType>(schema: T, description: string, example: unknown) => ({
  description,
  content: { "application/json": { schema, example } },
});

const retryAfter = {
  "Retry-After": {
    description: "Whole seconds to wait before retrying (at least 1)",
    schema: { type: "integer" as const, minimum: 1 },
  },
};

/** The error response of a status: the shared error body, the codes it can carry, and an example. */
function errorResponse(status: number) {
  const codes = Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([code]) => code);
  const code = codes.find((c) => ERROR_EXAMPLE_MESSAGES[c]) ?? codes[0] ?? "INTERNAL";
  const example = {
    error: { code, ...ERROR_EXAMPLE_MESSAGES[code], request_id: "req_01JD6Z8Q4G2M0F3T6S8V9W0X1Y" },
  };
  return {
    ...json(ErrorResponse, `Error: ${codes.join(", ")}`, example),
    ...((status === 429 || status === 503) && { headers: retryAfter }),
  };
}
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), errorResponse(status)]));

/** Every authenticated request can meet these: a bad key, a missing permission, the rate limit, a bug, an outage. */
const common = [401, 403, 429, 500, 503];
/** And every POST these: its body (JSON, size, type) and the Idempotency-Key. */
const post = [400, 409, 413, 415];

const idempotencyHeader = z.object({
  "Idempotency-Key": z.string().max(255).optional().meta({
    description:
      "The same key from the same API key with the same body within 24 h replays the first response; with another body: 409. Keys of one API key never replay for another.",
    example: "order-1234-shipped",
  }),
});

const body = <T extends z.ZodType>(schema: T, example: unknown) => ({
  headers: idempotencyHeader,
  body: { content: { "application/json": { schema, example } }, required: true },
});

const OPERATIONS: RouteConfig[] = [
  {
    method: "post",
    path: "/v1/sms/send",
    operationId: "sendSms",
    summary: "Send one SMS, now or at scheduled_at",
    tags: ["SMS"],
    request: body(SendSmsRequest, examples.sendSmsRequest),
    responses: {
      202: json(SendSmsResponse, "Accepted: queued or scheduled", examples.sendSmsResponse),
      ...errors(...post, 402, 422, ...common),
    },
  },
  {
    method: "post",
    path: "/v1/sms/bulk",
    operationId: "sendBulk",
    summary: "Send many SMS with one sender id; invalid items are reported, valid ones accepted",
    tags: ["SMS"],
    request: body(BulkSmsRequest, examples.bulkRequest),
    responses: {
      202: json(BulkSmsResponse, "Accepted items and per-item errors", examples.bulkResponse),
      ...errors(...post, 402, ...common),
    },
  },
  {
    method: "get",
    path: "/v1/sms",
    operationId: "listMessages",
    summary: "List messages, newest first, a page at a time (next_cursor)",
    tags: ["SMS"],
    request: { query: ListMessagesQuery },
    responses: {
      200: json(MessageList, "A page of messages", examples.messageList),
      ...errors(400, ...common),
    },
  },
  {
    method: "get",
    path: "/v1/sms/export",
    operationId: "exportMessages",
    summary: "The account's messages created in a range (at most 31 days) as CSV, oldest first, streamed",
    description:
      "Columns: id, created_at, to, sender_id, status, segments, credits, error_code, client_ref, batch_id, sent_at, delivered_at, failed_at, body (as stored: an OTP message's body never holds its code). RFC 4180 quoting; free-text cells that start with = + - @ (or a tab or CR) are prefixed with an apostrophe so spreadsheets do not run them. A failure after the first row ends the download incomplete (no final chunk).",
    tags: ["SMS"],
    request: { query: ExportMessagesQuery },
    responses: {
      200: {
        description: "The CSV, as an attachment (Content-Disposition)",
        content: {
          "text/csv": {
            schema: z.string().meta({ description: "RFC 4180 CSV with a header row, CRLF line ends" }),
            example:
              "id,created_at,to,sender_id,status,segments,credits,error_code,client_ref,batch_id,sent_at,delivered_at,failed_at,body\r\nmsg_01JD6Z8Q4G2M0F3T6S8V9W0X1Y,2026-11-01T09:30:00.000Z,+14155550100,ACME,delivered,1,1,,order-1234,,2026-11-01T09:30:01.000Z,2026-11-01T09:30:04.000Z,,Your order has shipped\r\n",
          },
        },
      },
      ...errors(400, ...common),
    },
  },
  {
    method: "get",
    path: "/v1/sms/{message_id}",
    operationId: "getMessage",
    summary: "A message with its status history",
    tags: ["SMS"],
    request: { params: MessageIdParam },
    responses: {
      200: json(MessageWithHistory, "The message", examples.messageWithHistory),
      ...errors(404, ...common),
    },
  },
  {
    method: "post",
    path: "/v1/sms/{message_id}/cancel",
    operationId: "cancelMessage",
    summary: "Cancel a scheduled message (its credits are returned)",
    tags: ["SMS"],
    request: { params: MessageIdParam, headers: idempotencyHeader },
    responses: {
      200: json(MessageView, "Canceled", examples.canceled),
      ...errors(...post, 404, ...common),
    },
  },
  {
    method: "get",
    path: "/v1/inbound",
    operationId: "listInbound",
    summary: "List inbound messages to the account's numbers, newest first, a page at a time (next_cursor)",
    tags: ["Inbound"],
    request: { query: ListInboundQuery },
    responses: {
      200: json(InboundList, "A page of inbound messages", examples.inboundList),
      ...errors(400, ...common),
    },
  },
  {
    method: "get",
    path: "/v1/inbound/{inbound_id}",
    operationId: "getInbound",
    summary: "An inbound message",
    tags: ["Inbound"],
    request: { params: InboundIdParam },
    responses: {
      200: json(InboundView, "The inbound message", examples.inbound),
      ...errors(404, ...common),
    },
  },
  {
    method: "get",
    path: "/v1/batches/{batch_id}",
    operationId: "getBatch",
    summary: "Counts per status of a bulk batch",
    description:
      "Also served at /v1/sms/bulk/{batch_id}, its first address, left out of this document: it is ambiguous beside /v1/sms/{message_id}/cancel.",
    tags: ["SMS"],
    request: { params: BatchIdParam },
    responses: { 200: json(BatchView, "The batch", examples.batch), ...errors(404, ...common) },
  },
  {
    method: "post",
    path: "/v1/otp/send",
    operationId: "sendOtp",
    summary: "Send a one-time code by SMS; a newer OTP to the same phone cancels the pending one",
    tags: ["OTP"],
    request: body(SendOtpRequest, examples.sendOtpRequest),
    responses: {
      201: json(SendOtpResponse, "The OTP is pending and its SMS queued", examples.sendOtpResponse),
      ...errors(...post, 402, 422, ...common),
    },
  },
  {
    method: "post",
    path: "/v1/otp/verify",
    operationId: "verifyOtp",
    summary: "Check a code: 200 with verified true or false; each OTP takes 5 wrong codes, and works once",
    tags: ["OTP"],
    request: body(VerifyOtpRequest, examples.verifyOtpRequest),
    responses: {
      200: json(VerifyOtpResponse, "The code was checked", examples.verifyOtpResponse),
      ...errors(...post, 404, 410, ...common),
    },
  },
  {
    method: "get",
    path: "/v1/otp/{otp_id}",
    operationId: "getOtp",
    summary: "The status of an OTP (never its code)",
    tags: ["OTP"],
    request: { params: OtpIdParam },
    responses: { 200: json(OtpView, "The OTP", examples.otp), ...errors(404, ...common) },
  },
  {
    method: "get",
    path: "/v1/account",
    operationId: "getAccount",
    summary: "Balance, limits, authorized sender ids and the webhook endpoint's event types",
    tags: ["Account"],
    responses: { 200: json(AccountView, "The account", examples.account), ...errors(...common) },
  },
  {
    method: "get",
    path: "/v1/suppressions",
    operationId: "listSuppressions",
    summary: "The numbers this account may not send to (they replied STOP, or were added), newest first",
    tags: ["Suppressions"],
    request: { query: ListSuppressionsQuery },
    responses: {
      200: json(SuppressionList, "One page of the list", examples.suppressionList),
      ...errors(400, ...common),
    },
  },
  {
    method: "post",
    path: "/v1/suppressions",
    operationId: "addSuppression",
    summary: "Add a number to the suppression list: every send to it is refused with RECIPIENT_OPTED_OUT",
    tags: ["Suppressions"],
    request: body(AddSuppressionRequest, { number: "+14155550100" }),
    responses: {
      200: json(SuppressionView, "Already on the list: its first record", examples.suppression),
      201: json(SuppressionView, "Added", { ...examples.suppression, source: "api", reply_number: null }),
      ...errors(...post, ...common),
    },
  },
  {
    method: "delete",
    path: "/v1/suppressions/{number}",
    operationId: "removeSuppression",
    summary: "Remove a number from the suppression list (only with the recipient's consent)",
    tags: ["Suppressions"],
    request: { params: SuppressionNumberParam },
    responses: {
      204: { description: "Removed: sends to the number are accepted again" },
      ...errors(400, 404, ...common),
    },
  },
];

const received = { 200: { description: "Any 2xx within 15 s is success; 410 disables the endpoint" } };
const WEBHOOKS: RouteConfig[] = [
  {
    method: "post",
    path: "messageStatus",
    operationId: "messageStatusWebhook",
    summary: "message.queued, message.sent, message.delivered, message.failed: a message changed status",
    tags: ["Webhooks"],
    request: {
      body: {
        content: { "application/json": { schema: MessageStatusEvent, example: examples.statusEvent } },
      },
    },
    responses: received,
  },
  {
    method: "post",
    path: "messageReceived",
    operationId: "messageReceivedWebhook",
    summary: "message.received: an inbound message to one of the account's numbers",
    tags: ["Webhooks"],
    request: {
      body: {
        content: { "application/json": { schema: MessageReceivedEvent, example: examples.receivedEvent } },
      },
    },
    responses: received,
  },
  {
    method: "post",
    path: "webhookTest",
    operationId: "webhookTestWebhook",
    summary: "webhook.test: sent when the endpoint is set or on request",
    tags: ["Webhooks"],
    request: {
      body: { content: { "application/json": { schema: WebhookTestEvent, example: examples.testEvent } } },
    },
    responses: received,
  },
];

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function buildOpenApiDocument(serverUrl = "/") {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "API key from the dashboard",
  });
  for (const operation of OPERATIONS) registry.registerPath(operation);
  for (const webhook of WEBHOOKS) registry.registerWebhook(webhook);
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: "3.1.0",
    info: {
      title: "SMS platform API",
      version: "1.0.0",
      description:
        "Send SMS and bulk SMS, schedule, read statuses, and send and verify one-time codes. Errors share one shape: {error: {code, message, field, request_id}}. Webhooks are signed per the Standard Webhooks spec (webhook-id, webhook-timestamp, webhook-signature).",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: serverUrl, description: "The gateway that serves this document" }],
    security: [{ bearer: [] }],
    tags: [
      { name: "SMS", description: "Send, schedule, list, read and cancel messages; bulk batches" },
      { name: "OTP", description: "One-time codes: send, verify, read" },
      { name: "Inbound", description: "Messages received on the account's numbers and short codes" },
      { name: "Account", description: "Balance, limits, sender ids and webhook settings" },
      {
        name: "Suppressions",
        description: "Opt-out: numbers that replied STOP, or that were added, never get a message",
      },
      { name: "Webhooks", description: "What the platform POSTs to the account's endpoint, signed" },
    ],
  });
}
