// pnpm bench:e2e — the platform against Kannel on the same SMSC, in one run.
//  1. Ours, as `npm start` runs it: BENCH_E2E_MESSAGES (20,000) single POST /v1/sms/send at 50
//     connections → dispatcher → carrier simulator (DELIVRD receipt for every message, no
//     throttling) → dlr-ingest → signed webhooks to a local receiver. Once with the account's
//     endpoint subscribed to every event, once to final events only (message.delivered and
//     message.failed: webhook_endpoints.event_types), each on a fresh database.
//     BENCH_E2E_EVENTS=all|final runs one of them.
//  2. Kannel (apt-get install kannel when missing): the same count of HTTP sendsms at 50
//     connections → bearerbox → SMPP transceiver to the same simulator → DELIVRD → dlr-url.
// Before each measured run, BENCH_E2E_WARMUP messages (5,000) go the same way and are seen
// through to their webhooks or callbacks, unmeasured: the figures are those of a running
// platform, not of its first seconds (code not yet optimised by V8, pools still opening).
// BENCH_E2E_WARMUP=0 measures from a cold start.
// End to end is the first request to the last delivered webhook (ours) or dlr-url callback
// (Kannel). Prints accepted/s with the accept p99, both end-to-end rates and their ratio, the
// CPU per message of every process, and the integrity counts. Targets (the issue's): ≥ 1.0×
// Kannel with final events only, ≥ 0.6× with every event; ≤ 700 µs CPU per message all-in;
// accept ≥ 3,000/s while the pipeline runs; 0 lost, 0 duplicated, every webhook id once.
import pg from "pg";
import { createSecretBox } from "@sms/secret-box";
import { generateSecret } from "@sms/webhook-signing";
import { describeCpu, startCpuMeter } from "./cpu-meter";
import { runKannel } from "./e2e-kannel";
import {
  BASE,
  BENCH_OWN,
  CONNECTIONS,
  TIMEOUT_MS,
  TOTAL,
  WARMUP,
  ownCpuSeconds,
  rate,
  simulatorAccepted,
  sleep,
  waitForReceiver,
  type Phase,
} from "./e2e-phase";
import { runReceiver, startReceiverProcess, type ReceiverProcess } from "./e2e-receiver";
import { fixedCountLoad, machineLoad } from "./load-generator";
import { readIntegrity } from "./pipeline-support";
import { routeEverythingTo, startPlatform, startSimulator, type Simulator } from "./platform";
import {
  BACKGROUND_NICE,
  BENCH_SECRETS,
  createBenchAccount,
  deleteRedisPrefix,
  freshDatabase,
  stopService,
} from "./support";

const MODES = (["all", "final"] as const).filter((mode) => (process.env.BENCH_E2E_EVENTS ?? mode) === mode);
const FINAL_EVENTS = ["message.delivered", "message.failed"];

/** Reads the PostgreSQL backends every second until stopped (they may come and go). */
function sampleEverySecond(sample: () => Promise<void>): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      await sample();
      await sleep(1000);
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

/** The webhooks the endpoint is owed for every event written so far (final ones only in mode final). */
async function owedWebhooks(db: pg.Client, mode: "all" | "final"): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    // A status event is its history row (its event_id); outbox_events holds the others.
    `SELECT (SELECT count(*) FROM message_events
             WHERE event_id IS NOT NULL AND ($1::text[] IS NULL OR 'message.' || status = ANY($1)))
          + (SELECT count(*) FROM outbox_events WHERE $1::text[] IS NULL OR type = ANY($1)) AS n`,
    [mode === "final" ? FINAL_EVENTS : null],
  );
  return Number(rows[0]!.n);
}

async function runOurs(
  mode: "all" | "final",
  simulator: Simulator,
  receiver: ReceiverProcess,
): Promise<Phase | undefined> {
  const title =
    mode === "all"
      ? "Ours, the endpoint subscribed to every event (BENCH_E2E_EVENTS=all)"
      : "Ours, the endpoint subscribed to message.delivered and message.failed only (BENCH_E2E_EVENTS=final)";
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const databaseUrl = await freshDatabase(base, `sms_bench_e2e_${BASE}`);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const redisPrefix = `bench-e2e-${Date.now()}`;
  try {
    const { rows: column } = await db.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'webhook_endpoints' AND column_name = 'event_types'`,
    );
    if (mode === "final" && column.length === 0) {
      console.log(
        `\n${title}: skipped — this commit has no webhook_endpoints.event_types column (an endpoint gets every event)`,
      );
      return undefined;
    }
    const { accountId, key } = await createBenchAccount(databaseUrl, "BENCH");
    await routeEverythingTo(db, simulator);
    const secret = generateSecret();
    await db.query(
      "INSERT INTO webhook_endpoints (account_id, url, secret_sealed, updated_at) VALUES ($1, $2, $3, now())",
      [
        accountId,
        receiver.webhookUrl,
        createSecretBox(BENCH_SECRETS.SECRET_ENCRYPTION_KEY).seal(secret, accountId),
      ],
    );
    if (mode === "final")
      await db.query("UPDATE webhook_endpoints SET event_types = $1 WHERE account_id = $2", [
        FINAL_EVENTS,
        accountId,
      ]);

    const platform = await startPlatform({ base: BASE, databaseUrl, redisUrl, redisPrefix });
    try {
      const sendLoad = (amount: number) =>
        fixedCountLoad({
          url: `${platform.gatewayUrl}/v1/sms/send`,
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ to: "+14155550100", message: "E2E benchmark message", sender_id: "BENCH" }),
          connections: CONNECTIONS,
          amount,
        });
      receiver.reset(secret);
      if (WARMUP > 0) {
        const warm = await sendLoad(WARMUP);
        await waitForReceiver(
          receiver,
          Date.now() + TIMEOUT_MS,
          (stats) => stats.webhooks.deliveredMessages >= warm.accepted,
        );
        const owed = await owedWebhooks(db, mode);
        await waitForReceiver(
          receiver,
          Date.now() + TIMEOUT_MS,
          (stats) => stats.webhooks.distinctIds >= owed,
        );
        receiver.reset(secret);
      }
      const owedBefore = await owedWebhooks(db, mode);
      const segmentsBefore = (await readIntegrity(db)).segments!;
      const carrierBefore = await simulatorAccepted(simulator);
      const meter = await startCpuMeter({
        processes: [
          ...[...platform.processes].map(([name, child]): [string, number] => [name, child.pid!]),
          ["carrier-simulator", simulator.child.pid!],
          ["load generator (autocannon, the bench process)", () => ownCpuSeconds()],
          ["receiver (its own process)", receiver.pid],
        ],
        db,
        redisUrl,
      });
      const stopSampling = sampleEverySecond(meter.sample);
      const loadBefore = machineLoad();
      const started = Date.now();
      const deadline = started + TIMEOUT_MS;
      const load = await sendLoad(TOTAL);
      const delivered = await waitForReceiver(
        receiver,
        deadline,
        (stats) => stats.webhooks.deliveredMessages >= load.accepted,
      );
      // Every event of the run the endpoint is owed (all of them now that every message is final) received.
      const expectedWebhooks = (await owedWebhooks(db, mode)) - owedBefore;
      const received = await waitForReceiver(
        receiver,
        deadline,
        (stats) => stats.webhooks.distinctIds >= expectedWebhooks,
      );
      const allReceivedSeconds = (Date.now() - started) / 1000;
      await stopSampling();
      const cpu = await meter.stop();
      const loadAfter = machineLoad();
      const integrity = await readIntegrity(db);
      const carrierSubmits = (await simulatorAccepted(simulator)) - carrierBefore;
      // Where the run's time went: the last submit's answer and the last delivered status were
      // written at these moments (updated_at is the commit's now(), not the carrier's time).
      const { rows: stages } = await db.query<{ submitted: Date | null; delivered: Date | null }>(
        `SELECT (SELECT max(submitted_at) FROM message_segments) AS submitted,
                (SELECT max(updated_at) FROM messages WHERE status = 'delivered') AS delivered`,
      );
      const secondsAfterStart = (at: Date | null | undefined) =>
        at ? `${((at.getTime() - started) / 1000).toFixed(1)} s` : "—";

      const endToEnd = (delivered.webhooks.lastDeliveredAt - started) / 1000;
      const hooks = received.webhooks;
      const lost = load.accepted - hooks.deliveredMessages;
      console.log(`\n${title}`);
      if (WARMUP > 0)
        console.log(`  after ${WARMUP} messages through to their webhooks, not measured (BENCH_E2E_WARMUP)`);
      console.log(
        `  accepted ${load.accepted}/${TOTAL} in ${load.seconds.toFixed(1)} s → ${rate(load.accepted, load.seconds)}/s while the pipeline runs (target ≥ 3000); ` +
          `latency p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, max ${load.latencyMs.max} ms; ` +
          `non-2xx ${load.nonSuccess}, errors ${load.errors} (${load.generator}, ${CONNECTIONS} connections)`,
      );
      console.log(
        delivered.webhooks.deliveredMessages >= load.accepted
          ? `  end to end: last message.delivered webhook ${endToEnd.toFixed(1)} s after the first request → ${rate(load.accepted, endToEnd)} messages/s`
          : `  end to end: TIMED OUT after ${TIMEOUT_MS / 1000} s with ${delivered.webhooks.deliveredMessages}/${load.accepted} message.delivered webhooks`,
      );
      console.log(
        `  timeline from the first request: last accepted ${load.seconds.toFixed(1)} s, last submit answered ` +
          `${secondsAfterStart(stages[0]?.submitted)}, last message delivered in PostgreSQL ${secondsAfterStart(stages[0]?.delivered)}, ` +
          `last message.delivered webhook ${endToEnd.toFixed(1)} s`,
      );
      const unsubscribed =
        mode === "final"
          ? Object.entries(hooks.byEvent)
              .filter(([event]) => !FINAL_EVENTS.includes(event))
              .reduce((sum, [, n]) => sum + n, 0)
          : 0;
      console.log(
        `  webhooks: ${hooks.distinctIds} received for ${expectedWebhooks} owed, the last ${allReceivedSeconds.toFixed(1)} s after the first request; by event ${JSON.stringify(hooks.byEvent)}` +
          (mode === "final"
            ? `; ${unsubscribed} of events the endpoint is not subscribed to (must be 0)`
            : ""),
      );
      console.log(
        `  integrity: lost ${lost}, duplicated ${hooks.eventsWithTwoIds} (an event under two webhook ids), ` +
          `webhook ids received more than once ${hooks.idRepeats}, segments marked for the wire again ${integrity.segments_marked_again} (a retry, or a turn missed unwritten), ` +
          `carrier got ${carrierSubmits - (integrity.segments! - segmentsBefore)} extra submits, messages not final ${integrity.not_terminal}, ` +
          `without exactly one terminal event ${integrity.terminal_events_not_one}; signatures verified ${hooks.signaturesValid}/${hooks.signaturesChecked} sampled`,
      );
      const { lines, total } = describeCpu(cpu, load.accepted, BENCH_OWN);
      console.log(
        `  CPU per message, first request → last owed webhook (background workers at nice ${BACKGROUND_NICE}, as npm start runs them):`,
      );
      for (const line of lines) console.log(`    ${line}`);
      console.log(
        `    ${"all-in (every line counted)".padEnd(66)} ${total.toFixed(0).padStart(6)} µs   (target ≤ 700)`,
      );
      console.log(`  ${loadBefore} before, ${loadAfter} after`);
      return {
        name: `ours, ${mode === "all" ? "every event" : "final events only"}`,
        accepted: load.accepted,
        endToEndSeconds: delivered.webhooks.deliveredMessages >= load.accepted ? endToEnd : NaN,
        cpuTotal: total,
        acceptRate: load.accepted / load.seconds,
      };
    } finally {
      await platform.stop();
    }
  } finally {
    await db.end();
    await deleteRedisPrefix(redisUrl, redisPrefix);
  }
}

async function main(): Promise<void> {
  console.log(
    `bench:e2e: ${TOTAL} messages per run after ${WARMUP} unmeasured, ${CONNECTIONS} connections, everything on 127.0.0.1 (ports ${BASE + 1}–${BASE + 15}); ${machineLoad()}`,
  );
  const simulator = await startSimulator(BASE);
  const receiver = await startReceiverProcess();
  const phases: Phase[] = [];
  try {
    for (const mode of MODES) {
      const phase = await runOurs(mode, simulator, receiver);
      if (phase) phases.push(phase);
    }
    const kannel = await runKannel(simulator, receiver);
    const speed = (phase: Phase) => phase.accepted / phase.endToEndSeconds;
    console.log("\nSummary (end to end = first request → last delivered webhook / callback):");
    if (kannel)
      console.log(`  Kannel                     ${speed(kannel).toFixed(0).padStart(6)} messages/s`);
    for (const phase of phases) {
      const target = phase.name.includes("final") ? 1.0 : 0.6;
      console.log(
        `  ${phase.name.padEnd(26)} ${speed(phase).toFixed(0).padStart(6)} messages/s` +
          (kannel
            ? ` = ${(speed(phase) / speed(kannel)).toFixed(2)}× Kannel (target ≥ ${target.toFixed(1)}×)`
            : "") +
          `; CPU ${phase.cpuTotal.toFixed(0)} µs per message all-in (target ≤ 700); accepted ${phase.acceptRate.toFixed(0)}/s (target ≥ 3000)`,
      );
    }
  } finally {
    receiver.stop();
    await stopService(simulator.child);
  }
}

if (process.env.BENCH_ROLE === "receiver") void runReceiver();
else
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
