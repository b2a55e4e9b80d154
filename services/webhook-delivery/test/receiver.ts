import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  headers: Record<string, string>;
  raw: string;
  body: { event: string; message_id: string; timestamp: string; data: Record<string, unknown> };
  receivedAt: number;
}

type Answer = (webhook: ReceivedWebhook, res: http.ServerResponse) => void;

/** A customer's endpoint on loopback: records every POST and answers as `answer` says (204 by default). */
export interface Receiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  answer: Answer;
  /** Distinct webhook-ids seen. */
  ids(): Set<string>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const receiver = {} as Receiver;
  receiver.answer = (_webhook, res) => res.writeHead(204).end();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
      );
      const webhook: ReceivedWebhook = {
        id: headers["webhook-id"] ?? "",
        timestamp: headers["webhook-timestamp"] ?? "",
        headers,
        raw,
        body: JSON.parse(raw),
        receivedAt: Date.now(),
      };
      received.push(webhook);
      receiver.answer(webhook, res);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actualPort = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${actualPort}/webhooks`,
    port: actualPort,
    received,
    ids: () => new Set(received.map((w) => w.id)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
