// pnpm bench:smpp — one customer transceiver bind with a window of 100 against the built
// smpp-server, with the rest of the platform running as `npm start` runs it (carrier
// simulator, dispatcher, dlr-ingest, scheduler with the outbox relay doing the work;
// gateway, webhook-delivery, otp-sweeper, dashboard and ops-console idle). Prints:
//   1. submit_sm answered ESME_ROK per second (target ≥ 5,000/s);
//   2. receipts returned to the customer per second as they come back through the
//      pipeline (dispatcher → simulator → dlr-ingest → outbox relay → smpp-server);
//   3. the receipt path alone (smpp_receipts rows and a notification, as the outbox relay
//      writes them → deliver_sm), one more final event per accepted message (target ≥ 2,000/s).
import crypto from "node:crypto";
import pg from "pg";
import { DATABASE_SESSION_OPTIONS } from "@sms/db";
import { hashPassword, hashSmppPassword } from "@sms/auth";
import { newId } from "@sms/ids";
import type { SmppReceiptJob } from "@sms/queues";
import { notifyReceiptsStored, storeReceiptsFor } from "@sms/customer-receipts";
import { encodeGsm7 } from "@sms/sms-encoding";
import { SmppClient, type SubmitSm } from "@sms/smpp";
import { cpuSecondsMatching, cpuSecondsOf, machineCpu, machineLoad } from "./load-generator";
import {
  BACKGROUND_NICE,
  createBenchAccount,
  deleteRedisPrefix,
  freshDatabase,
  listenOn,
  startService,
  stopService,
} from "./support";

const TOTAL = Number(process.env.BENCH_SMPP_MESSAGES ?? 30_000);
/**
 * Submits before the measured ones, their receipts awaited: every process starts cold (V8
 * compiles the hot paths on helper threads during the first seconds, PostgreSQL's caches and
 * plans are empty), and a long-running platform is measured warm. 0 measures a cold start.
 */
const WARMUP = Number(process.env.BENCH_SMPP_WARMUP ?? 10_000);
const WINDOW = 100;
/** Ports BASE+1 … BASE+12 and BASE+30 … BASE+33 (BENCH_PORT, default 3950): two runs on one machine must not collide. */
const BASE = Number(process.env.BENCH_PORT ?? 3950);
const port = (n: number) => String(BASE + n);
const SMPP_PORT = BASE + 1;
const RECEIPT_WAIT_MS = Number(process.env.BENCH_SMPP_RECEIPT_WAIT_MS ?? 20_000);
/** BENCH_SMPP_ALONE=1 starts only the smpp-server (to profile it): no receipts come back through the pipeline. */
const ALONE = process.env.BENCH_SMPP_ALONE === "1";

/** The services with nothing to do in this benchmark, on ports BASE+8 … BASE+12. */
async function startIdleServices(common: Record<string, string>) {
  const web = { HOST: "127.0.0.1", WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_ALLOW_HTTP: "true" };
  const settings: Record<string, Record<string, string>> = {
    "api-gateway": { HOST: "127.0.0.1" },
    "webhook-delivery": web,
    "otp-sweeper": {},
    dashboard: { ...web, DASHBOARD_SECURE_COOKIES: "false" },
    "ops-console": {
      HOST: "127.0.0.1",
      OPS_CONSOLE_PASSWORD_HASH: await hashPassword(crypto.randomBytes(16).toString("hex")),
    },
  };
  const started = [];
  for (const [i, [name, env]] of Object.entries(settings).entries()) {
    const listen = listenOn(name, port(8 + i), port(30 + i));
    started.push(await startService(name, { ...common, ...env, ...listen.env }, listen.readyUrl));
  }
  return started;
}

/** Submits `count` copies of `segment`, the client keeping its window full. */
async function submitAll(
  client: SmppClient,
  segment: SubmitSm,
  count: number,
): Promise<{ ids: string[]; refused: number }> {
  const ids: string[] = [];
  let refused = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await client.submit(segment);
      if (response.command_status === 0 && response.message_id) ids.push(response.message_id);
      else refused += 1;
    }),
  );
  return { ids, refused };
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const databaseUrl = await freshDatabase(base, `sms_bench_smpp_${BASE}`);
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redisPrefix = `bench-smpp-${Date.now()}`;
  const common = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_PREFIX: redisPrefix };
  const { accountId } = await createBenchAccount(databaseUrl, "BENCH");
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query(
    "INSERT INTO smpp_credentials (system_id, account_id, password_hash) VALUES ('bench', $1, $2)",
    [accountId, await hashSmppPassword("bench")],
  );
  await db.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, transmitter_binds, receiver_binds, window_size, submits_per_second, updated_at)
     VALUES ('sim', 'simulator', '127.0.0.1', ${port(2)}, 'platform', 'platform', 2, 1, 100, 100000, now())`,
  );
  await db.query("INSERT INTO routes (id, prefix, carrier_id, priority) VALUES ('rte_all', '+', 'sim', 0)");

  // Everything `npm start` runs; the gateway, webhook-delivery, otp-sweeper, dashboard and ops-console have
  // no work here but run their loops (reconcilers, sweeps, metrics) as they would.
  const idle = ["api-gateway", "webhook-delivery", "otp-sweeper", "dashboard", "ops-console"];
  const names = ALONE
    ? ["smpp-server"]
    : ["carrier-simulator", "dlr-ingest", "dispatcher", "scheduler", ...idle, "smpp-server"];
  const children = ALONE
    ? []
    : [
        await startService(
          "carrier-simulator",
          {
            ...common,
            CARRIER_SIM_HOST: "127.0.0.1",
            CARRIER_SIM_SMPP_PORT: port(2),
            CARRIER_SIM_HTTP_PORT: port(3),
            CARRIER_SIM_RECEIPT_DELAY_MS: "50",
            CARRIER_SIM_WINDOW_SIZE: "200",
            CARRIER_SIM_MAGIC_NUMBERS: "false",
          },
          `http://127.0.0.1:${port(3)}/readyz`,
        ),
        await startService("dlr-ingest", { ...common, PORT: port(4) }, `http://127.0.0.1:${port(4)}/readyz`),
        await startService("dispatcher", { ...common, PORT: port(5) }, `http://127.0.0.1:${port(5)}/readyz`),
        await startService("scheduler", { ...common, PORT: port(6) }, `http://127.0.0.1:${port(6)}/readyz`),
        ...(await startIdleServices(common)),
      ];
  children.push(
    await startService(
      "smpp-server",
      { ...common, PORT: port(7), HOST: "127.0.0.1", SMPP_PORT: String(SMPP_PORT) },
      `http://127.0.0.1:${port(7)}/readyz`,
    ),
  );
  const receiptTimes: number[] = [];
  const client = new SmppClient({
    host: "127.0.0.1",
    port: SMPP_PORT,
    systemId: "bench",
    password: "bench",
    bindType: "transceiver",
    windowSize: WINDOW,
    reconnect: false,
    enquireLinkIntervalMs: 0,
    onDeliverSm: () => void receiptTimes.push(Date.now()),
  });
  try {
    await client.connect();
    const segment = {
      source_addr: "BENCH",
      destination_addr: "14155550100",
      dest_addr_ton: 1,
      registered_delivery: 1,
      data_coding: 0,
      short_message: Buffer.from(encodeGsm7("SMPP benchmark message")),
    };
    // 0. Warm-up: the same submits, and their receipts back through the pipeline, unmeasured.
    const warmupStarted = Date.now();
    const warmupIds = await submitAll(client, segment, WARMUP);
    const warmupDeadline = Date.now() + 60_000;
    while (receiptTimes.length < warmupIds.ids.length && Date.now() < warmupDeadline && !ALONE)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const warmupSeconds = (Date.now() - warmupStarted) / 1000;
    receiptTimes.length = 0;

    // 1. submit_sm, WINDOW outstanding (SmppClient keeps its window full).
    const smppServer = children.at(-1)!;
    const loadBefore = machineLoad();
    const cpuBefore = cpuSecondsOf(smppServer.pid);
    const everyCpu = () => [
      ...children.map((child) => cpuSecondsOf(child.pid)),
      cpuSecondsMatching("postgres"),
      cpuSecondsMatching("redis-server"),
      ((usage) => (usage.user + usage.system) / 1e6)(process.cpuUsage()),
    ];
    const walBefore = (await db.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0]!
      .lsn;
    const everyBefore = everyCpu();
    const machineBefore = machineCpu();
    const started = Date.now();
    const { ids, refused } = await submitAll(client, segment, TOTAL);
    const submitSeconds = (Date.now() - started) / 1000;
    const submitCpu = cpuSecondsOf(smppServer.pid) - cpuBefore;
    const everyAfter = everyCpu();
    const machineAfter = machineCpu();
    // The whole server's WAL: everything this bench's platform wrote (nothing else should run).
    // Read after the CPU figures, so its round trip is not in them.
    const { rows: walRows } = await db.query<{ bytes: string }>(
      "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint::text AS bytes",
      [walBefore],
    );
    const walPerSubmit = Number(walRows[0]!.bytes) / TOTAL;
    const idleShare =
      (machineAfter.idle - machineBefore.idle) /
      (machineAfter.idle - machineBefore.idle + machineAfter.busy - machineBefore.busy);
    const cpuSplit = [...names, "postgres", "redis", "this client"]
      .map((name, i) => `${name} ${(((everyAfter[i]! - everyBefore[i]!) / TOTAL) * 1e6).toFixed(0)}`)
      .join(", ");
    const loadAfterSubmits = machineLoad();

    // 2. Receipts through the pipeline, for as long as RECEIPT_WAIT_MS allows.
    const deadline = Date.now() + (ALONE ? 0 : RECEIPT_WAIT_MS);
    while (receiptTimes.length < ids.length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const pipelineReceipts = receiptTimes.length;
    const pipelineSpan = ((receiptTimes.at(-1) ?? started) - started) / 1000;

    // 3. The receipt path alone: one more final event per accepted message, written as the outbox
    //    relay writes them (smpp_receipts rows and a notification, 500 per transaction).
    const alreadyReceived = receiptTimes.length;
    const direct = ids.slice(0, Math.min(ids.length, 20_000));
    const occurredAt = new Date().toISOString();
    const events: SmppReceiptJob[] = direct.map((messageId) => ({
      eventId: newId("evt"),
      accountId,
      messageId,
      status: "delivered",
      previousStatus: "sent",
      sequence: 9,
      errorCode: null,
      occurredAt,
    }));
    const directStarted = Date.now();
    const relayPool = new pg.Pool({
      connectionString: databaseUrl,
      max: 1,
      options: DATABASE_SESSION_OPTIONS,
    });
    const relay = await relayPool.connect();
    for (let i = 0; i < events.length; i += 500) {
      await relay.query("BEGIN");
      const { accountIds } = await storeReceiptsFor(relay, events.slice(i, i + 500));
      await notifyReceiptsStored(relay, accountIds);
      await relay.query("COMMIT");
    }
    relay.release();
    await relayPool.end();
    const directDeadline = Date.now() + 20_000;
    while (receiptTimes.length < alreadyReceived + direct.length && Date.now() < directDeadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const directCount = receiptTimes.length - alreadyReceived;
    const directSeconds = ((receiptTimes.at(-1) ?? directStarted) - directStarted) / 1000;

    console.log(
      `\nSMPP server: one transceiver bind, window ${WINDOW}, ${ALONE ? "the smpp-server alone (BENCH_SMPP_ALONE=1)" : `the whole platform running and processing what is submitted (background workers at nice ${BACKGROUND_NICE}; npm start runs them at 10)`}`,
    );
    console.log(
      `  warm-up: ${warmupIds.ids.length} submits${ALONE ? "" : " and their receipts"} in ${warmupSeconds.toFixed(1)} s before the measured ones (BENCH_SMPP_WARMUP)`,
    );
    console.log(
      `  submit_sm ESME_ROK   ${ids.length} in ${submitSeconds.toFixed(2)} s → ${(ids.length / submitSeconds).toFixed(0)} /s   (target ≥ 5000; refused ${refused})`,
    );
    console.log(
      `  smpp-server CPU per submit_sm ${((submitCpu / TOTAL) * 1e6).toFixed(0)} µs; ${loadBefore} before the submits, ${loadAfterSubmits} after`,
    );
    console.log(
      `  CPU during the submits, µs per submit_sm: ${cpuSplit}; the machine ${(idleShare * 100).toFixed(0)} % idle`,
    );
    console.log(
      `  PostgreSQL WAL written during the submits: ${(walPerSubmit / 1024).toFixed(1)} KiB per submit_sm (the server's, all databases)`,
    );
    console.log(
      ALONE
        ? "  receipts (pipeline)  not run: no dispatcher or dlr-ingest with BENCH_SMPP_ALONE=1"
        : `  receipts (pipeline)  ${pipelineReceipts}/${ids.length} within ${(RECEIPT_WAIT_MS / 1000).toFixed(0)} s of the last submit, last at ${pipelineSpan.toFixed(2)} s → ${(pipelineReceipts / pipelineSpan).toFixed(0)} /s from the first submit`,
    );
    console.log(
      `  receipts (path only) ${directCount}/${direct.length} in ${directSeconds.toFixed(2)} s → ${(directCount / directSeconds).toFixed(0)} /s   (target ≥ 2000)${ALONE ? "" : "; pipeline receipts still arriving are counted too, and compete"}`,
    );
  } finally {
    await client.close().catch(() => undefined);
    for (const child of children.reverse()) await stopService(child);
    await db.end();
    await deleteRedisPrefix(redisUrl, redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
