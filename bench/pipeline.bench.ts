// pnpm bench:pipeline — 20,000 messages through the whole platform on this machine:
// gateway (HTTP) → sms.dispatch → dispatcher → carrier simulator (SMPP) → receipts →
// dlr-ingest → delivered in PostgreSQL. Prints the rate of each stage so the slowest
// shows, the work each process did, and the integrity counts. Target:
// ≥ 1,500 messages/s first request → last delivered, zero lost, zero duplicated.
//
//   BENCH_MODE        bulk (default): POST /v1/sms/bulk, BENCH_BULK_SIZE (1,000) per request,
//                     BENCH_BULK_CONCURRENCY (4) at once — how a high-volume REST customer sends;
//                     single: one POST /v1/sms/send per message (autocannon, 50 connections)
//   BENCH_DISPATCHERS dispatcher processes (1)      BENCH_DLR dlr-ingest processes (1)
//   BENCH_WEBHOOK     webhook-delivery processes (0); ≥ 1 also runs the scheduler (its event
//                     relay) and a local receiver: every queued/sent/delivered event is POSTed
import os from "node:os";
import type { ChildProcess } from "node:child_process";
import autocannon from "autocannon";
import pg from "pg";
import { createSecretBox } from "@sms/secret-box";
import { generateSecret } from "@sms/webhook-signing";
import {
  readIntegrity,
  receiptsByReplica,
  startWebhookReceiver,
  workByProcess,
  type WebhookReceiver,
} from "./pipeline-support";
import {
  BENCH_SECRETS,
  createBenchAccount,
  deleteRedisPrefix,
  freshDatabase,
  listenOn,
  startService,
  stopService,
} from "./support";

const TOTAL = Number(process.env.BENCH_MESSAGES ?? 20_000);
const MODE = process.env.BENCH_MODE === "single" ? "single" : "bulk";
const BULK_SIZE = Number(process.env.BENCH_BULK_SIZE ?? 1000);
const BULK_CONCURRENCY = Number(process.env.BENCH_BULK_CONCURRENCY ?? 4);
const DISPATCHERS = Number(process.env.BENCH_DISPATCHERS ?? 1);
const DLR = Number(process.env.BENCH_DLR ?? 1);
const WEBHOOK = Number(process.env.BENCH_WEBHOOK ?? 0);
const GATEWAY_PORT = 3901;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 300_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends TOTAL messages the chosen way; resolves with the count the gateway accepted. */
async function send(key: string): Promise<{ accepted: number; failedRequests: number }> {
  const url = `http://127.0.0.1:${GATEWAY_PORT}`;
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  if (MODE === "single") {
    const load = await autocannon({
      url: `${url}/v1/sms/send`,
      method: "POST",
      headers,
      body: JSON.stringify({ to: "+14155550100", message: "Pipeline benchmark message", sender_id: "BENCH" }),
      connections: 50,
      amount: TOTAL,
    });
    return { accepted: load["2xx"], failedRequests: load.non2xx + load.errors };
  }
  const batches = Array.from({ length: Math.ceil(TOTAL / BULK_SIZE) }, (_, b) =>
    Math.min(BULK_SIZE, TOTAL - b * BULK_SIZE),
  );
  let next = 0;
  let accepted = 0;
  let failedRequests = 0;
  const worker = async () => {
    while (next < batches.length) {
      const b = next++;
      const messages = Array.from({ length: batches[b]! }, (_, i) => ({
        to: `+1415${String(5_000_000 + ((b * BULK_SIZE + i) % 5_000_000)).padStart(7, "0")}`,
        message: "Pipeline benchmark message",
      }));
      const body = JSON.stringify({ sender_id: "BENCH", messages });
      // As a customer would: a 503 or 429 is sent again with the same Idempotency-Key, so
      // a batch the gateway did accept is answered from the first response, never twice.
      for (let attempt = 1; ; attempt++) {
        const response = await fetch(`${url}/v1/sms/bulk`, {
          method: "POST",
          headers: { ...headers, "idempotency-key": `bench-batch-${b}` },
          body,
        });
        const payload = (await response.json()) as { accepted?: number; error?: { code?: string } };
        if (response.ok) {
          accepted += payload.accepted ?? 0;
          break;
        }
        failedRequests++;
        console.log(`  bulk ${b}: HTTP ${response.status} ${payload.error?.code ?? ""} (attempt ${attempt})`);
        if (attempt >= 5 || (response.status !== 503 && response.status !== 429)) break;
        await sleep(500 * attempt);
      }
    }
  };
  await Promise.all(Array.from({ length: BULK_CONCURRENCY }, worker));
  return { accepted, failedRequests };
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const databaseUrl = await freshDatabase(base, "sms_bench_pipeline");
  const redisPrefix = `bench-pipe-${Date.now()}`;
  const common = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    REDIS_PREFIX: redisPrefix,
  };
  const { accountId, key } = await createBenchAccount(databaseUrl, "BENCH");
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, transmitter_binds, receiver_binds, window_size, submits_per_second, updated_at)
     VALUES ('sim', 'simulator', '127.0.0.1', 3902, 'platform', 'platform', 2, 1, 100, 100000, now())`,
  );
  await db.query("INSERT INTO routes (id, prefix, carrier_id, priority) VALUES ('rte_all', '+', 'sim', 0)");

  const labels = { dispatcher: new Map<number, string>() };
  // An applied receipt is its segment's columns, not a row (docs/decisions.md#applied-receipts):
  // each replica's counter of what it stored tells the receipts apart.
  const dlrMetrics = new Map<string, string>();
  const webhookSenders = new Map<number, string>();
  let receiver: WebhookReceiver | undefined;
  if (WEBHOOK > 0) {
    receiver = await startWebhookReceiver(() => webhookSenders);
    const box = createSecretBox(BENCH_SECRETS.SECRET_ENCRYPTION_KEY);
    await db.query(
      "INSERT INTO webhook_endpoints (account_id, url, secret_sealed, updated_at) VALUES ($1, $2, $3, now())",
      [accountId, `http://127.0.0.1:${receiver.port}/hooks`, box.seal(generateSecret(), accountId)],
    );
  }

  const children: ChildProcess[] = [];
  const start = async (name: string, env: Record<string, string>, port: number) => {
    const listen = listenOn(name, port, port + 100);
    const child = await startService(name, { ...common, ...env, ...listen.env }, listen.readyUrl);
    children.push(child);
    return child;
  };
  let sampling = true;
  try {
    await start(
      "carrier-simulator",
      {
        CARRIER_SIM_HOST: "127.0.0.1",
        CARRIER_SIM_SMPP_PORT: "3902",
        CARRIER_SIM_HTTP_PORT: "3903",
        CARRIER_SIM_RECEIPT_DELAY_MS: "50",
        CARRIER_SIM_WINDOW_SIZE: "200",
        CARRIER_SIM_MAGIC_NUMBERS: "false",
      },
      3903,
    );
    await start("api-gateway", { HOST: "127.0.0.1" }, GATEWAY_PORT);
    for (let i = 0; i < DLR; i++) {
      await start("dlr-ingest", {}, 3904 + i);
      const { readyUrl } = listenOn("dlr-ingest", 3904 + i, 3904 + i + 100);
      dlrMetrics.set(`dlr-ingest #${i + 1}`, readyUrl.replace("/readyz", "/metrics"));
    }
    for (let i = 0; i < DISPATCHERS; i++)
      labels.dispatcher.set((await start("dispatcher", {}, 3910 + i)).pid!, `dispatcher #${i + 1}`);
    if (WEBHOOK > 0) {
      await start("scheduler", {}, 3930);
      for (let i = 0; i < WEBHOOK; i++) {
        const child = await start(
          "webhook-delivery",
          { WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ENDPOINT_CONCURRENCY: "200" },
          3940 + i,
        );
        webhookSenders.set(child.pid!, `webhook-delivery #${i + 1}`);
      }
    }

    const started = Date.now();
    const stageDone: Record<string, number> = {};
    // Until the sends finish the sampler waits for TOTAL; then for what the gateway accepted.
    const expected = { messages: TOTAL };
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await db.query<Record<"accepted" | "submitted" | "delivered" | "failed", string>>(
          `SELECT count(*) AS accepted,
                  count(*) FILTER (WHERE status IN ('sent', 'delivered', 'failed')) AS submitted,
                  count(*) FILTER (WHERE status = 'delivered') AS delivered,
                  count(*) FILTER (WHERE status = 'failed') AS failed FROM messages`,
        );
        const counts = rows[0]!;
        for (const stage of ["accepted", "submitted", "delivered"] as const)
          if (!stageDone[stage] && Number(counts[stage]) >= expected.messages) stageDone[stage] = Date.now();
        if (stageDone.delivered || Number(counts.failed) > 0) break;
        if (Date.now() - started > TIMEOUT_MS) throw new Error(`timed out: ${JSON.stringify(counts)}`);
        await sleep(100);
      }
    })();
    const sent = await send(key);
    expected.messages = sent.accepted;
    stageDone.http = Date.now();
    await sampler;
    sampling = false;

    let webhooksExpected = 0;
    if (receiver) {
      webhooksExpected = (await readIntegrity(db)).events!;
      const until = Date.now() + 120_000;
      while (receiver.ids.size < webhooksExpected && Date.now() < until) await sleep(100);
    }
    const integrity = await readIntegrity(db);
    const simulator = (await (await fetch("http://127.0.0.1:3903/stats")).json()) as {
      submits: { accepted: number };
    };
    const seconds = (at: number | undefined) => ((at ?? NaN) - started) / 1000;
    const line = (what: string, at: number | undefined, note = "") =>
      console.log(
        `  ${what.padEnd(30)} all by ${seconds(at).toFixed(2).padStart(6)} s → ${(sent.accepted / seconds(at)).toFixed(0).padStart(5)} msg/s${note}`,
      );
    const mode =
      MODE === "bulk"
        ? `BULK: POST /v1/sms/bulk, ${BULK_SIZE} per request, ${BULK_CONCURRENCY} at once`
        : "SINGLE: one POST /v1/sms/send per message, autocannon, 50 connections";
    console.log(`\nPipeline: ${TOTAL} messages; acceptance mode ${mode}`);
    console.log(
      `  processes: ${DISPATCHERS} dispatcher, ${DLR} dlr-ingest, ${WEBHOOK} webhook-delivery${WEBHOOK ? " + scheduler relay" : ""}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    console.log(
      `  gateway accepted ${sent.accepted} (requests answered with an error ${sent.failedRequests})`,
    );
    line(`accepted (${MODE === "bulk" ? "bulk" : "single sends"})`, stageDone.accepted);
    line("submitted (SMPP)", stageDone.submitted);
    line("delivered (receipts applied)", stageDone.delivered, "   end to end (target ≥ 1500)");
    if (receiver) {
      const duplicates = [...receiver.events.values()].filter((ids) => ids.size > 1).length;
      const repeats = [...receiver.ids.values()].reduce((sum, n) => sum + n - 1, 0);
      console.log(
        `  webhooks: ${receiver.ids.size}/${webhooksExpected} events received, all by ${seconds(receiver.lastAt).toFixed(2)} s; ` +
          `${duplicates} events with two different webhook-ids (must be 0), ${repeats} retries of one id`,
      );
    }
    console.log("  work per process:");
    const show = (rows: Array<[string, number]>, unit: string) =>
      rows.forEach(([who, n]) => console.log(`    ${who.padEnd(22)} ${String(n).padStart(6)} ${unit}`));
    show(
      await workByProcess(
        db,
        "SELECT submitted_by AS worker, count(*) AS n FROM message_segments GROUP BY 1",
        labels.dispatcher,
      ),
      "segments submitted (message_segments.submitted_by)",
    );
    show(await receiptsByReplica(dlrMetrics), "receipts stored (sms_dlr_receipts_total)");
    if (receiver) show([...receiver.bySender].sort(), "webhooks POSTed (owner of the connection's socket)");
    // Accepted (a 2xx said so) but missing or never final.
    const lost = Math.max(0, sent.accepted - integrity.messages!) + integrity.not_terminal!;
    console.log(
      `  integrity: ${JSON.stringify({ ...integrity, carrier_submits_accepted: simulator.submits.accepted })}`,
    );
    console.log(
      `  lost ${lost}, carrier got ${simulator.submits.accepted - integrity.segments!} extra submits, ` +
        `messages without exactly one terminal event ${integrity.terminal_events_not_one} (all must be 0); ` +
        `segments marked for the wire again ${integrity.segments_marked_again} (a retry, or a turn missed unwritten)`,
    );
  } finally {
    sampling = false;
    for (const child of children.reverse()) await stopService(child);
    receiver?.close();
    await db.end();
    await deleteRedisPrefix(common.REDIS_URL, redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
