// pnpm bench:webhooks — webhook delivery on this machine: the scheduler's event relay
// and one webhook-delivery process POST signed events to a local receiver.
//  1. Throughput: BENCH_WEBHOOKS events (default 30,000) written at once; deliveries/s
//     from the first to the last received. Target: ≥ 3,000/s.
//  2. Latency: status changes written at 1,000/s for BENCH_DURATION_S seconds; time from
//     the change (the event's timestamp) to the webhook at the receiver. Target: p99 < 1 s.
// The events are status changes as the platform writes them (docs/decisions.md#status-events):
// a message per event, its history row carrying the event id, queued for the relay in
// outbox_pending, the webhook's data built from the history when the delivery is claimed. With
// BENCH_WEBHOOKS_KIND=outbox they are message.received events instead: outbox_events rows with
// their payload stored, queued by that table's trigger.
// BENCH_WEBHOOK_PROCESSES (default 1) webhook-delivery processes run side by side. This
// machine is shared, so beside the wall-clock figures the run prints the CPU each part
// spent per 1,000 deliveries (from /proc), which other people's load disturbs far less.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import pg from "pg";
import { newId } from "@sms/ids";
import { createSecretBox } from "@sms/secret-box";
import { generateSecret } from "@sms/webhook-signing";
import { BENCH_SECRETS, deleteRedisPrefix, freshDatabase, startService, stopService } from "./support";

const TOTAL = Number(process.env.BENCH_WEBHOOKS ?? 30_000);
const RATE = 1000;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const PROCESSES = Number(process.env.BENCH_WEBHOOK_PROCESSES ?? 1);
const CLOCK_TICKS_PER_S = 100; // USER_HZ on Linux
/** Ports BASE+1 … BASE+1+BENCH_WEBHOOK_PROCESSES (BENCH_PORT, default 3930): two runs on one machine must not collide. */
const BASE = Number(process.env.BENCH_PORT ?? 3930);

/** CPU milliseconds a process has used (user + system), or NaN where /proc is not readable. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** CPU used so far by each part of the pipeline, in ms. */
async function cpuSnapshot(
  db: pg.Client,
  redis: { info(section: string): Promise<string> },
  pids: Record<string, number | undefined>,
): Promise<Record<string, number>> {
  const snapshot: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) snapshot[name] = cpuMsOf(pid);
  // This database's server processes (the bench's own, which writes the events, excluded).
  const { rows } = await db.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  snapshot["postgres (this database's backends)"] = rows.reduce((sum, row) => sum + cpuMsOf(row.pid), 0);
  const info = await redis.info("cpu");
  const seconds = (field: string) => Number(new RegExp(`${field}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
  snapshot["redis-server (whole server, shared)"] =
    (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1000;
  const own = process.cpuUsage();
  snapshot["receiver (bench process)"] = (own.user + own.system) / 1000;
  return snapshot;
}

function printCpu(before: Record<string, number>, after: Record<string, number>, deliveries: number): void {
  let total = 0;
  console.log(`  CPU per 1,000 deliveries:`);
  for (const name of Object.keys(after)) {
    const ms = ((after[name]! - before[name]!) / deliveries) * 1000;
    total += ms;
    console.log(`    ${name.padEnd(38)} ${ms.toFixed(0).padStart(5)} ms`);
  }
  console.log(
    `    ${"total".padEnd(38)} ${total.toFixed(0).padStart(5)} ms → at most ${((os.cpus().length * 1e6) / total).toFixed(0)} deliveries/s on ${os.cpus().length} idle cores`,
  );
}

const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

function startReceiver(): Promise<{
  port: number;
  arrivals: Map<string, number>;
  lateness: number[];
  close(): void;
}> {
  const arrivals = new Map<string, number>();
  const lateness: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const now = Date.now();
      const id = String(req.headers["webhook-id"]);
      if (!arrivals.has(id)) {
        arrivals.set(id, now);
        const { timestamp } = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string };
        lateness.push(now - Date.parse(timestamp));
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        arrivals,
        lateness,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

const KIND = process.env.BENCH_WEBHOOKS_KIND === "outbox" ? "outbox" : "status";

// What inbound storage writes (message.received, the one event type still stored with its payload).
const OUTBOX_EVENTS = `
INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
SELECT id, $1, 'in_' || substr(id, 5), 'message.received', 1,
       jsonb_build_object('from', '+14155550100', 'to', '+14155550199', 'text', 'STOP', 'segments', 1)
FROM unnest($2::text[]) AS t(id)`;

// What acceptance and the dispatcher's sent transition leave for the relay: the message (sent),
// its history (queued, then sent with its event id) and the event queued in outbox_pending.
const STATUS_EVENTS = `
WITH t AS (
  SELECT * FROM unnest($2::text[], $3::text[]) AS t(message_id, event_id)
), m AS (
  INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                        status, status_sequence, sent_at)
  SELECT message_id, $1, '+14155550100', 'BENCH', 'x', 'GSM7', 1, 0, 'sent', 2, now() FROM t
), h AS (
  INSERT INTO message_events (message_id, sequence, status, previous_status, occurred_at, event_id)
  SELECT message_id, 1, 'queued'::"MessageStatus", NULL::"MessageStatus", now(), NULL FROM t
  UNION ALL SELECT message_id, 2, 'sent', 'queued', now(), event_id FROM t
)
INSERT INTO outbox_pending (event_id, message_id, sequence) SELECT event_id, message_id, 2 FROM t ORDER BY event_id`;

/** `count` events of one account, as KIND says; their ids are made now, so their time is now. */
async function writeEvents(db: pg.Client, accountId: string, count: number): Promise<void> {
  const eventIds = Array.from({ length: count }, () => newId("evt"));
  if (KIND === "outbox") await db.query(OUTBOX_EVENTS, [accountId, eventIds]);
  else await db.query(STATUS_EVENTS, [accountId, eventIds.map(() => newId("msg")), eventIds]);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const databaseUrl = await freshDatabase(base, `sms_bench_webhooks_${BASE}`);
  const redisPrefix = `bench-hooks-${Date.now()}`;
  const common = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    REDIS_PREFIX: redisPrefix,
  };
  const receiver = await startReceiver();
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const accountId = newId("acc");
  await db.query("INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'bench', 0, now())", [
    accountId,
  ]);
  const box = createSecretBox(BENCH_SECRETS.SECRET_ENCRYPTION_KEY);
  await db.query(
    "INSERT INTO webhook_endpoints (account_id, url, secret_sealed, updated_at) VALUES ($1, $2, $3, now())",
    [accountId, `http://127.0.0.1:${receiver.port}/hooks`, box.seal(generateSecret(), accountId)],
  );
  const children = [
    await startService(
      "scheduler",
      { ...common, PORT: String(BASE + 1) },
      `http://127.0.0.1:${BASE + 1}/readyz`,
    ),
  ];
  for (let i = 0; i < PROCESSES; i++) {
    const port = String(BASE + 2 + i);
    children.push(
      await startService(
        "webhook-delivery",
        {
          ...common,
          PORT: port,
          WEBHOOK_ALLOW_LOOPBACK: "true",
          WEBHOOK_ALLOW_HTTP: "true",
          // Room for every process's 200 attempts (WEBHOOK_CONCURRENCY): at the cap, jobs would
          // wait ~2 s in BullMQ's delayed set and come back, work that is not delivery.
          WEBHOOK_ENDPOINT_CONCURRENCY: String(200 * PROCESSES),
        },
        `http://127.0.0.1:${port}/readyz`,
      ),
    );
  }
  const { Redis } = await import("ioredis");
  const redis = new Redis(common.REDIS_URL);
  const pids = Object.fromEntries(
    children.map((child, i) => [i === 0 ? "scheduler (relay)" : `webhook-delivery #${i}`, child.pid]),
  );
  try {
    // 1. Throughput.
    const loadBefore = loadAverage();
    const cpuBefore = await cpuSnapshot(db, redis, pids);
    const written = Date.now();
    await writeEvents(db, accountId, TOTAL);
    const deadline = Date.now() + 120_000;
    while (receiver.arrivals.size < TOTAL && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const cpuAfter = await cpuSnapshot(db, redis, pids);
    const times = [...receiver.arrivals.values()].sort((a, b) => a - b);
    const first = times[0] ?? NaN;
    const last = times.at(-1) ?? NaN;
    // The last attempts are recorded a moment after their webhooks arrive (records are grouped).
    const readRecorded = () =>
      db.query<{ ok: string; attempts: string }>(
        // A success is kept on its delivery (success_on_row), every other attempt in webhook_attempts.
        "SELECT count(*) FILTER (WHERE status = 'succeeded') AS ok, count(*) FILTER (WHERE success_on_row) + (SELECT count(*) FROM webhook_attempts) AS attempts FROM webhook_deliveries",
      );
    let { rows: recorded } = await readRecorded();
    while (Number(recorded[0]!.ok) < TOTAL && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      ({ rows: recorded } = await readRecorded());
    }
    console.log(
      `\nWebhooks: ${TOTAL} ${KIND === "status" ? "status events (data from the history)" : "message.received events (stored payload)"} to one local endpoint (scheduler relay + ${PROCESSES} webhook-delivery process${PROCESSES > 1 ? "es" : ""})`,
    );
    console.log(`  load average         ${loadBefore} before, ${loadAverage()} after`);
    console.log(
      `  received             ${receiver.arrivals.size} distinct ids; ${recorded[0]!.ok} deliveries succeeded, ${recorded[0]!.attempts} attempts recorded`,
    );
    console.log(`  first webhook after  ${first - written} ms`);
    console.log(
      `  throughput           ${(((receiver.arrivals.size - 1) / (last - first)) * 1000).toFixed(0)} deliveries/s first→last   (target ≥ 3000)`,
    );
    console.log(
      `  written→all received ${((last - written) / 1000).toFixed(2)} s → ${((TOTAL / (last - written)) * 1000).toFixed(0)} /s`,
    );
    printCpu(cpuBefore, cpuAfter, receiver.arrivals.size);

    // 2. Latency at a steady 1,000 events/s.
    receiver.lateness.length = 0;
    const before = receiver.arrivals.size;
    const perTick = RATE / 20;
    const start = Date.now();
    let sent = 0;
    for (let tick = 0; tick < DURATION_S * 20; tick++) {
      await writeEvents(db, accountId, perTick);
      sent += perTick;
      const wait = start + (tick + 1) * 50 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    const until = Date.now() + 30_000;
    while (receiver.arrivals.size < before + sent && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    const late = [...receiver.lateness].sort((a, b) => a - b);
    console.log(`\n  steady ${RATE} events/s for ${DURATION_S} s: ${late.length}/${sent} received`);
    console.log(
      `  status change → webhook received: p50 ${percentile(late, 0.5)} ms, p90 ${percentile(late, 0.9)} ms, p99 ${percentile(late, 0.99)} ms, max ${late.at(-1)} ms   (target p99 < 1000)`,
    );
    console.log(`  load average         ${loadAverage()}`);
  } finally {
    for (const child of children.reverse()) await stopService(child);
    redis.disconnect();
    receiver.close();
    await db.end();
    await deleteRedisPrefix(common.REDIS_URL, redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
