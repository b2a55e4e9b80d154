import http from "node:http";
import { InboundBatchRequest, InboundRequest } from "./inbound";
import { ControlUpdate, type RuntimeSettings } from "./settings";
import type { MessageQuery, ReceivedMessage } from "./message-log";

/** What the control API reads and changes. */
export interface ControlTarget {
  settings(): RuntimeSettings;
  update(change: ControlUpdate): RuntimeSettings;
  messages(query: MessageQuery): ReceivedMessage[];
  stats(): unknown;
  reset(): void;
  dropConnections(): void;
  isReady(): boolean;
  /** Delivers an inbound message to the platform's binds: the HTTP status and body to answer. */
  injectInbound(request: InboundRequest): Promise<{ status: number; body: unknown }>;
  /** Delivers many at once, every part in flight together within the binds' windows. */
  injectInboundBatch(request: InboundBatchRequest): Promise<{ status: number; body: unknown }>;
}

/**
 * The simulator's HTTP API: GET /messages?to=&system_id=&limit=, DELETE /messages,
 * GET|POST /control, GET /stats, POST /connections/drop, POST /inbound, POST /inbound/batch,
 * GET /healthz, GET /readyz.
 */
export function createControlServer(target: ControlTarget): http.Server {
  return http.createServer((request, response) => {
    void route(target, request).then(
      ([status, body]) => send(response, status, body),
      (error: unknown) =>
        send(response, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

async function route(target: ControlTarget, request: http.IncomingMessage): Promise<[number, unknown]> {
  const url = new URL(request.url ?? "/", "http://simulator");
  const key = `${request.method} ${url.pathname}`;
  switch (key) {
    case "GET /healthz":
      return [200, { status: "ok" }];
    case "GET /readyz":
      return target.isReady() ? [200, { status: "ready" }] : [503, { status: "shutting_down" }];
    case "GET /messages": {
      const limit = Number(url.searchParams.get("limit") ?? 100);
      const query: MessageQuery = {
        to: url.searchParams.get("to") ?? undefined,
        systemId: url.searchParams.get("system_id") ?? undefined,
        limit: Number.isInteger(limit) && limit > 0 ? limit : 100,
      };
      return [200, { messages: target.messages(query) }];
    }
    case "DELETE /messages":
      target.reset();
      return [204, undefined];
    case "GET /stats":
      return [200, target.stats()];
    case "GET /control":
      return [200, target.settings()];
    case "POST /control": {
      const parsed = ControlUpdate.safeParse(await readJson(request));
      if (!parsed.success) return [400, { error: "invalid control update", issues: parsed.error.issues }];
      return [200, target.update(parsed.data)];
    }
    case "POST /inbound": {
      const parsed = InboundRequest.safeParse(await readJson(request));
      if (!parsed.success) return [400, { error: "invalid inbound message", issues: parsed.error.issues }];
      try {
        const { status, body } = await target.injectInbound(parsed.data);
        return [status, body];
      } catch (error) {
        if (error instanceof RangeError) return [400, { error: error.message }];
        throw error;
      }
    }
    case "POST /inbound/batch": {
      const parsed = InboundBatchRequest.safeParse(await readJson(request, BATCH_BODY_LIMIT));
      if (!parsed.success) return [400, { error: "invalid inbound batch", issues: parsed.error.issues }];
      try {
        const { status, body } = await target.injectInboundBatch(parsed.data);
        return [status, body];
      } catch (error) {
        if (error instanceof RangeError) return [400, { error: error.message }];
        throw error;
      }
    }
    case "POST /connections/drop":
      target.dropConnections();
      return [204, undefined];
    default:
      return [404, { error: `no route ${key}` }];
  }
}

const BODY_LIMIT = 64 * 1024;
/** 20,000 short messages fit. */
const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

async function readJson(request: http.IncomingMessage, limit = BODY_LIMIT): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error(`body over ${limit / 1024} KiB`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    return undefined;
  }
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  const json = JSON.stringify(body);
  response
    .writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) })
    .end(json);
}
