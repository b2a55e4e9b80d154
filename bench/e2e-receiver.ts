// The receiving end of bench:e2e, in a process of its own so its CPU is counted apart from the
// load generator's: our signed webhooks (pipeline-support's receiver; a sample of signatures
// checked with @sms/webhook-signing) and Kannel's dlr-url callbacks (GET /dlr?type=%d&id=%I).
import { fork, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "@sms/webhook-signing";
import { startWebhookReceiver } from "./pipeline-support";

export interface ReceiverStats {
  webhooks: {
    requests: number;
    distinctIds: number;
    /** Requests beyond the first of a webhook-id (retries: allowed, counted). */
    idRepeats: number;
    /** (message, event) pairs that came with two different webhook-ids: duplicates. */
    eventsWithTwoIds: number;
    byEvent: Record<string, number>;
    deliveredMessages: number;
    lastDeliveredAt: number;
    signaturesChecked: number;
    signaturesValid: number;
  };
  dlr: { requests: number; deliveredIds: number; repeats: number; lastDeliveredAt: number };
}

type Command = { type: "reset"; secret: string } | { type: "stats"; seq: number };
type Reply =
  | { type: "ready"; webhookPort: number; dlrPort: number }
  | { type: "stats"; seq: number; stats: ReceiverStats };

/** The first SAMPLE_HEAD webhooks and every SAMPLE_EVERY-th after have their signature checked. */
const SAMPLE_HEAD = 200;
const SAMPLE_EVERY = 100;

/** Runs in the child (BENCH_ROLE=receiver). */
export async function runReceiver(): Promise<void> {
  let secret = "";
  let requests = 0;
  let signaturesChecked = 0;
  let signaturesValid = 0;
  let lastDeliveredAt = 0;
  const delivered = new Set<string>();
  const webhooks = await startWebhookReceiver(
    () => new Map(),
    (webhook) => {
      requests++;
      if (webhook.event === "message.delivered") {
        delivered.add(webhook.messageId);
        lastDeliveredAt = webhook.at;
      }
      if (secret && (requests <= SAMPLE_HEAD || requests % SAMPLE_EVERY === 0)) {
        signaturesChecked++;
        try {
          verifyWebhook({ secret, headers: webhook.headers, body: webhook.rawBody });
          signaturesValid++;
        } catch {
          /* counted as not valid */
        }
      }
    },
  );
  const dlr = { requests: 0, ids: new Map<string, number>(), lastDeliveredAt: 0 };
  const dlrServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://receiver");
    dlr.requests++;
    // dlr-mask 1 asks for "delivered" only; anything else is not counted as delivered.
    if (url.pathname === "/dlr" && url.searchParams.get("type") === "1") {
      const id = url.searchParams.get("id") ?? "";
      dlr.ids.set(id, (dlr.ids.get(id) ?? 0) + 1);
      dlr.lastDeliveredAt = Date.now();
    }
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  dlrServer.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => dlrServer.listen(0, "127.0.0.1", resolve));

  const stats = (): ReceiverStats => {
    const byEvent: Record<string, number> = {};
    let eventsWithTwoIds = 0;
    for (const [key, ids] of webhooks.events) {
      const event = key.split(" ")[1]!;
      byEvent[event] = (byEvent[event] ?? 0) + 1;
      if (ids.size > 1) eventsWithTwoIds++;
    }
    return {
      webhooks: {
        requests,
        distinctIds: webhooks.ids.size,
        idRepeats: [...webhooks.ids.values()].reduce((sum, n) => sum + n - 1, 0),
        eventsWithTwoIds,
        byEvent,
        deliveredMessages: delivered.size,
        lastDeliveredAt,
        signaturesChecked,
        signaturesValid,
      },
      dlr: {
        requests: dlr.requests,
        deliveredIds: dlr.ids.size,
        repeats: [...dlr.ids.values()].reduce((sum, n) => sum + n - 1, 0),
        lastDeliveredAt: dlr.lastDeliveredAt,
      },
    };
  };
  process.on("message", (command: Command) => {
    if (command.type === "reset") {
      secret = command.secret;
      requests = signaturesChecked = signaturesValid = lastDeliveredAt = 0;
      delivered.clear();
      webhooks.ids.clear();
      webhooks.events.clear();
      webhooks.bySender.clear();
      dlr.requests = dlr.lastDeliveredAt = 0;
      dlr.ids.clear();
    } else process.send!({ type: "stats", seq: command.seq, stats: stats() } satisfies Reply);
  });
  process.on("disconnect", () => {
    webhooks.close();
    dlrServer.closeAllConnections();
    dlrServer.close();
  });
  process.send!({
    type: "ready",
    webhookPort: webhooks.port,
    dlrPort: (dlrServer.address() as AddressInfo).port,
  } satisfies Reply);
}

export interface ReceiverProcess {
  pid: number;
  webhookUrl: string;
  dlrUrl: string;
  /** Forgets everything received; webhooks are then checked against `secret`. */
  reset(secret?: string): void;
  stats(): Promise<ReceiverStats>;
  stop(): void;
}

/** Forks this bench's own bundle as the receiver. */
export async function startReceiverProcess(): Promise<ReceiverProcess> {
  const child: ChildProcess = fork(process.argv[1]!, [], {
    env: { ...process.env, BENCH_ROLE: "receiver" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<Extract<Reply, { type: "ready" }>>((resolve, reject) => {
    child.once("message", (reply: Reply) =>
      reply.type === "ready" ? resolve(reply) : reject(new Error("receiver")),
    );
    child.once("exit", () => reject(new Error("the receiver process exited")));
  });
  let seq = 0;
  const pending = new Map<number, (stats: ReceiverStats) => void>();
  child.on("message", (reply: Reply) => {
    if (reply.type === "stats") pending.get(reply.seq)?.(reply.stats);
    if (reply.type === "stats") pending.delete(reply.seq);
  });
  return {
    pid: child.pid!,
    webhookUrl: `http://127.0.0.1:${ready.webhookPort}/hooks`,
    dlrUrl: `http://127.0.0.1:${ready.dlrPort}/dlr`,
    reset: (secret = "") => child.send({ type: "reset", secret } satisfies Command),
    stats: () =>
      new Promise((resolve) => {
        pending.set(++seq, resolve);
        child.send({ type: "stats", seq } satisfies Command);
      }),
    stop: () => {
      child.disconnect();
      child.kill();
    },
  };
}
