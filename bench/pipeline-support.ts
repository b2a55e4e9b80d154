// Helpers of the pipeline, e2e and fairness benches: the webhook receiver, which records for every
// request the process that sent it (the owner of the connection's socket, from /proc:
// observed, not inferred), and the integrity queries.
import { readdir, readFile, readlink } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type pg from "pg";
import { sampleValue } from "@sms/metrics";

export interface WebhookReceiver {
  port: number;
  /** webhook-id → times received (a retry repeats the id: at least once is allowed). */
  ids: Map<string, number>;
  /** `${message_id} ${event}` → the distinct webhook-ids it came with (more than one is a duplicate). */
  events: Map<string, Set<string>>;
  /** Requests per sending process label; "unknown" when the socket closed before it was looked up. */
  bySender: Map<string, number>;
  lastAt: number;
  close(): void;
}

/** One request as received, for receivers that look further (signatures, arrival times). */
export interface ReceivedWebhook {
  id: string;
  event: string;
  messageId: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  at: number;
}

/**
 * A local endpoint answering 204 to every POST; `senders` maps pids to the label printed for them.
 * `onWebhook` sees every request before it is answered.
 */
export async function startWebhookReceiver(
  senders: () => Map<number, string>,
  onWebhook?: (webhook: ReceivedWebhook) => void,
): Promise<WebhookReceiver> {
  const owners = new WeakMap<Socket, Promise<string>>();
  const receiver: Omit<WebhookReceiver, "port" | "close"> = {
    ids: new Map(),
    events: new Map(),
    bySender: new Map(),
    lastAt: 0,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      receiver.ids.set(id, (receiver.ids.get(id) ?? 0) + 1);
      const rawBody = Buffer.concat(chunks).toString();
      const body = JSON.parse(rawBody) as { event: string; message_id: string };
      const key = `${body.message_id} ${body.event}`;
      if (!receiver.events.has(key)) receiver.events.set(key, new Set());
      receiver.events.get(key)!.add(id);
      receiver.lastAt = Date.now();
      onWebhook?.({
        id,
        event: body.event,
        messageId: body.message_id,
        headers: req.headers,
        rawBody,
        at: receiver.lastAt,
      });
      void (owners.get(req.socket) ?? Promise.resolve("unknown")).then((owner) =>
        receiver.bySender.set(owner, (receiver.bySender.get(owner) ?? 0) + 1),
      );
      res.writeHead(204).end();
    });
  });
  server.on("connection", (socket) =>
    owners.set(
      socket,
      socketOwner(socket.remotePort!, (server.address() as AddressInfo).port, senders()).catch(
        () => "unknown",
      ),
    ),
  );
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(receiver, {
    port: (server.address() as AddressInfo).port,
    close() {
      server.closeAllConnections();
      server.close();
    },
  });
}

/**
 * The label of the process that owns the client end of a loopback connection to
 * `serverPort` from `clientPort`: the socket's inode from /proc/net/tcp, then which of
 * `pids` holds a file descriptor on it.
 */
async function socketOwner(
  clientPort: number,
  serverPort: number,
  pids: Map<number, string>,
): Promise<string> {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
  let inode: string | undefined;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = (await readFile(table, "utf8")).split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${hex(clientPort)}`) && fields[2]?.endsWith(`:${hex(serverPort)}`))
        inode = fields[9];
    }
  }
  if (!inode) return "unknown";
  for (const [pid, label] of pids) {
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      if (target === `socket:[${inode}]`) return label;
    }
  }
  return "unknown";
}

/** What the database says about the run: the counts that must be exact. */
export async function readIntegrity(db: pg.Client): Promise<Record<string, number>> {
  const { rows } = await db.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM messages) AS messages,
            (SELECT count(*) FROM message_segments) AS segments,
            -- Marked for the wire more than once: a retry, or a turn missed before the write (never sent).
            (SELECT count(*) FROM message_segments WHERE attempts > 1) AS segments_marked_again,
            (SELECT count(*) FROM messages WHERE status NOT IN ('delivered', 'failed', 'canceled')) AS not_terminal,
            (SELECT count(*) FROM (SELECT message_id FROM message_events WHERE status IN ('delivered', 'failed', 'canceled')
                                   GROUP BY message_id HAVING count(*) <> 1) AS x) AS terminal_events_not_one,
            -- A status event is its history row (its event_id); outbox_events holds the others.
            (SELECT count(*) FROM (SELECT message_id FROM message_events
                                   WHERE event_id IS NOT NULL AND status IN ('delivered', 'failed')
                                   GROUP BY message_id HAVING count(*) <> 1) AS x) AS final_events_not_one,
            (SELECT count(*) FROM message_events WHERE event_id IS NOT NULL)
              + (SELECT count(*) FROM outbox_events) AS events,
            -- Rows: receipts that did not apply at once (docs/decisions.md#applied-receipts).
            (SELECT count(*) FROM carrier_receipts) AS receipt_rows,
            (SELECT count(*) FROM carrier_receipts WHERE outcome <> 'applied') AS receipts_not_applied`,
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([key, value]) => [key, Number(value)]));
}

/** The receipts each dlr-ingest replica stored, whatever their outcome, from its /metrics (label → URL). */
export async function receiptsByReplica(metricsUrls: Map<string, string>): Promise<Array<[string, number]>> {
  const counts: Array<[string, number]> = [];
  for (const [label, url] of metricsUrls) {
    const text = await (await fetch(url)).text();
    counts.push([label, sampleValue(text, "sms_dlr_receipts_total") ?? 0]);
  }
  return counts;
}

/** Rows of `SELECT <column>, count(*)` labelled with the process names (host:pid → label). */
export async function workByProcess(
  db: pg.Client,
  query: string,
  labels: Map<number, string>,
): Promise<Array<[string, number]>> {
  const { rows } = await db.query<{ worker: string | null; n: string }>(query);
  return rows
    .map((row): [string, number] => {
      const pid = Number(row.worker?.split(":").pop());
      return [labels.get(pid) ?? `${row.worker ?? "nobody"}`, Number(row.n)];
    })
    .sort(([a], [b]) => (a < b ? -1 : 1));
}
