import createClient, { type Client } from "openapi-fetch";
import { toApiError } from "./errors";
import type { components, operations, paths } from "./generated/schema";
import { retryingFetch, type RetryOptions } from "./retrying-fetch";

type Schemas = components["schemas"];
type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;
export type ListMessagesQuery = NonNullable<operations["listMessages"]["parameters"]["query"]>;
export type ExportMessagesQuery = operations["exportMessages"]["parameters"]["query"];
export type ListInboundQuery = NonNullable<operations["listInbound"]["parameters"]["query"]>;
export type Message = Schemas["Message"];

export interface SmsClientOptions {
  /** The gateway, e.g. https://api.example.com */
  baseUrl: string;
  apiKey: string;
  retry?: RetryOptions;
  /** @defaultValue globalThis.fetch */
  fetch?: (request: Request) => Promise<Response>;
}

/** Per call: the Idempotency-Key to send (else a new one is made for each call). */
export interface PostOptions {
  idempotencyKey?: string;
}

const keyHeader = (options?: PostOptions) =>
  options?.idempotencyKey ? { "Idempotency-Key": options.idempotencyKey } : undefined;

/** The data of a 2xx answer, or the answer's SmsApiError thrown. */
async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw await toApiError(response, error);
  return data as T;
}

/**
 * A client of the SMS platform API: one method per operation of the OpenAPI document (named by
 * its operationId), typed from it. Errors are thrown as SmsApiError; `raw` is the generated
 * openapi-fetch client for anything else.
 */
export function createSmsClient(options: SmsClientOptions) {
  const raw: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(options.fetch ?? ((request) => globalThis.fetch(request)), options.retry),
  });
  const id = <K extends string>(name: K, value: string) => ({ path: { [name]: value } as Record<K, string> });

  const client = {
    raw,
    sendSms: (body: Body<"sendSms">, opts?: PostOptions) =>
      unwrap(raw.POST("/v1/sms/send", { body, params: { header: keyHeader(opts) } })),
    sendBulk: (body: Body<"sendBulk">, opts?: PostOptions) =>
      unwrap(raw.POST("/v1/sms/bulk", { body, params: { header: keyHeader(opts) } })),
    getMessage: (messageId: string) =>
      unwrap(raw.GET("/v1/sms/{message_id}", { params: id("message_id", messageId) })),
    listMessages: (query: ListMessagesQuery = {}) => unwrap(raw.GET("/v1/sms", { params: { query } })),
    /** The messages created in [since, until) (at most 31 days) as CSV, a stream to read as it comes. */
    exportMessages: (query: ExportMessagesQuery) =>
      unwrap(raw.GET("/v1/sms/export", { params: { query }, parseAs: "stream" })) as Promise<
        ReadableStream<Uint8Array>
      >,
    cancelMessage: (messageId: string, opts?: PostOptions) =>
      unwrap(
        raw.POST("/v1/sms/{message_id}/cancel", {
          params: { ...id("message_id", messageId), header: keyHeader(opts) },
        }),
      ),
    getBatch: (batchId: string) =>
      unwrap(raw.GET("/v1/batches/{batch_id}", { params: id("batch_id", batchId) })),
    sendOtp: (body: Body<"sendOtp">, opts?: PostOptions) =>
      unwrap(raw.POST("/v1/otp/send", { body, params: { header: keyHeader(opts) } })),
    verifyOtp: (body: Body<"verifyOtp">, opts?: PostOptions) =>
      unwrap(raw.POST("/v1/otp/verify", { body, params: { header: keyHeader(opts) } })),
    getOtp: (otpId: string) => unwrap(raw.GET("/v1/otp/{otp_id}", { params: id("otp_id", otpId) })),
    getAccount: () => unwrap(raw.GET("/v1/account")),
    listInbound: (query: ListInboundQuery = {}) => unwrap(raw.GET("/v1/inbound", { params: { query } })),
    getInbound: (inboundId: string) =>
      unwrap(raw.GET("/v1/inbound/{inbound_id}", { params: id("inbound_id", inboundId) })),

    /** Every message matching the query, newest first, fetched a page at a time as you iterate. */
    async *iterateMessages(query: Omit<ListMessagesQuery, "cursor"> = {}): AsyncGenerator<Message> {
      let cursor: string | undefined;
      do {
        const page = await client.listMessages({ ...query, ...(cursor && { cursor }) });
        yield* page.data;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    },
  };
  return client;
}

export type SmsClient = ReturnType<typeof createSmsClient>;
