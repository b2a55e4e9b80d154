import http from "node:http";
import https from "node:https";
import got, { type Got, type HandlerFunction } from "got";
import { assertUrlAllowed, createGuardedLookup } from "@sms/ssrf-guard";
import { signWebhook } from "@sms/webhook-signing";
import { parseRetryAfter } from "./retry-after";

export const RESPONSE_BODY_LIMIT = 4096;

export interface WebhookSenderOptions {
  /** Whole-attempt bound; 15 s by docs/webhooks.md#delivery-and-retries. */
  timeoutMs: number;
  /** Loopback targets are allowed only for local use and tests (docs/webhooks.md#address-checks). */
  allowLoopback: boolean;
  /** `http:` targets are allowed only outside production. */
  allowHttp: boolean;
  /** Largest delay a `Retry-After` can ask for. @defaultValue 24 h */
  maxRetryAfterMs?: number;
  /** Open sockets per destination host and port, process-wide. @defaultValue 256 */
  maxSocketsPerHost?: number;
  userAgent?: string;
}

export interface WebhookRequest {
  url: string;
  /** The current secret first; a rotated-out secret still inside its 24 h overlap after it. */
  secrets: readonly string[];
  /** The `evt_` id, the same on every attempt. */
  id: string;
  /** The exact JSON text to POST. */
  body: string;
}

/**
 * - success: a 2xx answer.
 * - gone: 410, the endpoint asks to be disabled.
 * - failure: anything else (another status, redirect, timeout, refused, blocked address).
 */
export type AttemptOutcome = "success" | "gone" | "failure";

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  latencyMs: number;
  /** The first 4 KiB of the answer, as text. */
  responseBody: string | null;
  error: string | null;
  /** From `Retry-After` on a 429 or 503. */
  retryAfterMs: number | null;
  startedAt: Date;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<AttemptResult>;
  close(): void;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const maxSockets = options.maxSocketsPerHost ?? 256;
  // Keep-alive: at thousands of deliveries a second a TLS handshake per POST would
  // dominate. A reused socket stays on the address the guard checked when it connected.
  const agent = {
    http: new http.Agent({ keepAlive: true, maxSockets, scheduling: "lifo" }),
    https: new https.Agent({ keepAlive: true, maxSockets, scheduling: "lifo" }),
  };
  const lookup = createGuardedLookup({ allowLoopback: options.allowLoopback });
  const client: Got = got.extend({
    agent,
    dnsLookup: lookup,
    handlers: [withLeanNativeOptions],
    // Every connection goes through the guarded lookup (a literal IP is checked before the request).
    // The options written out, no spread (see finish below).
    request: (url: URL, native: LeanNativeOptions, callback?: (response: http.IncomingMessage) => void) =>
      url.protocol === "https:"
        ? https.request(
            url,
            { method: native.method, headers: native.headers, agent: agent.https, lookup },
            callback,
          )
        : http.request(
            url,
            { method: native.method, headers: native.headers, agent: agent.http, lookup },
            callback,
          ),
    timeout: { request: options.timeoutMs },
    followRedirect: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
    decompress: false,
    headers: {
      "content-type": "application/json",
      "user-agent": options.userAgent ?? "sms-platform-webhooks/1.0",
    },
  });
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 24 * 3600 * 1000;
  // The URL check is a pure function of the URL and this sender's policy: an allowed URL is
  // remembered (parsing it cost about as much as signing); a refused one is checked every time.
  // The addresses a host name resolves to are still checked at every connect.
  const allowedUrls = new Set<string>();
  const assertAllowed = (url: string) => {
    if (allowedUrls.has(url)) return;
    assertUrlAllowed(url, { allowLoopback: options.allowLoopback, allowHttp: options.allowHttp });
    if (allowedUrls.size >= 10_000) allowedUrls.clear();
    allowedUrls.add(url);
  };

  async function send(request: WebhookRequest): Promise<AttemptResult> {
    const startedAt = new Date();
    const started = performance.now();
    // Each field written out: Node 20's V8 adds every property that follows a spread through its
    // slow path, about 2 µs each (docs/decisions.md#spreads).
    const finish = (partial: Omit<AttemptResult, "latencyMs" | "startedAt">): AttemptResult => ({
      outcome: partial.outcome,
      statusCode: partial.statusCode,
      responseBody: partial.responseBody,
      error: partial.error,
      retryAfterMs: partial.retryAfterMs,
      latencyMs: Math.round(performance.now() - started),
      startedAt,
    });
    const headers = signWebhook({
      secrets: request.secrets,
      id: request.id,
      timestamp: startedAt,
      body: request.body,
    });
    try {
      // Checked on every attempt: a literal IP never reaches the dns lookup, and the
      // policy may have changed since the URL was registered.
      assertAllowed(request.url);
      const { statusCode, retryAfter, body } = await post(client, request.url, headers, request.body);
      const outcome: AttemptOutcome =
        statusCode >= 200 && statusCode < 300 ? "success" : statusCode === 410 ? "gone" : "failure";
      const retryAfterMs =
        statusCode === 429 || statusCode === 503
          ? parseRetryAfter(retryAfter, Date.now(), maxRetryAfterMs)
          : null;
      const error = outcome === "failure" ? `HTTP ${statusCode}` : null;
      return finish({ outcome, statusCode, responseBody: body, error, retryAfterMs });
    } catch (error) {
      return finish({
        outcome: "failure",
        statusCode: null,
        responseBody: null,
        error: messageOf(error),
        retryAfterMs: null,
      });
    }
  }

  return {
    send,
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}

type LeanNativeOptions = Pick<http.RequestOptions, "method" | "headers">;

/**
 * got builds a ~45-field options object for node's http.request on every request; with
 * that many properties V8 makes it a dictionary, which cost about 100 µs and most of
 * the garbage of each POST at thousands of deliveries a second. Our request function
 * (above) takes the URL, the method and the headers and sets the agent and the guarded
 * lookup itself, so this got instance hands it only those. Timeouts, redirects and the
 * body stay got's. Each request has its own options object (got makes one per request),
 * and should a later got stop calling this method, requests stay the same, only slower:
 * the request function sets the agent and the lookup either way.
 */
const withLeanNativeOptions: HandlerFunction = (normalized, next) => {
  const lean = normalized as unknown as { createNativeRequestOptions: () => LeanNativeOptions };
  lean.createNativeRequestOptions = () => ({ method: normalized.method, headers: normalized.headers });
  return next(normalized);
};

/** POSTs and reads at most RESPONSE_BODY_LIMIT bytes of the answer, so a huge body costs nothing. */
function post(
  client: Got,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ statusCode: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = client.stream.post(url, { headers, body });
    let statusCode = 0;
    let retryAfter: string | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      resolve({
        statusCode,
        retryAfter,
        body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString("utf8"),
      });
    };
    stream.on("response", (response: http.IncomingMessage) => {
      statusCode = response.statusCode ?? 0;
      const header = response.headers["retry-after"];
      retryAfter = Array.isArray(header) ? header[0] : header;
    });
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_BODY_LIMIT) {
        done();
        stream.destroy();
      }
    });
    stream.on("end", done);
    stream.on("error", (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
  });
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    // got wraps the lookup's BlockedAddressError; its message names the host, never the address.
    const cause = (error as { cause?: unknown }).cause;
    const text =
      cause instanceof Error && cause.message !== error.message
        ? `${error.message}: ${cause.message}`
        : error.message;
    return code && !text.includes(code) ? `${code}: ${text}` : text;
  }
  return String(error);
}
