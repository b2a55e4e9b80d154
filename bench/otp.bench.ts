// pnpm bench:otp — POST /v1/otp/verify at a fixed 500 requests/s, and POST /v1/otp/send at
// the most it accepts. Gateway, PostgreSQL, Redis and the load generator share this machine.
// Targets: verify p99 ≤ 20 ms at 500/s; send ≥ 1,000 accepted/s.
import { cpuSecondsOf, jsonClient, machineLoad } from "./load-generator";
import {
  createBenchAccount,
  deleteRedisPrefix,
  freshDatabase,
  listenOn,
  startService,
  stopService,
} from "./support";

type Client = ReturnType<typeof jsonClient>;

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const VERIFY_RATE = Number(process.env.BENCH_VERIFY_RATE ?? 500);
const PORT = Number(process.env.BENCH_PORT ?? 3901);

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
const describe = (latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  const f = (p: number) => percentile(sorted, p).toFixed(1);
  return `p50 ${f(50)} ms  p90 ${f(90)} ms  p99 ${f(99)} ms  max ${sorted.at(-1)?.toFixed(1)} ms`;
};

/** Closed loop: `connections` callers each sending the next OTP as soon as the last one is answered. */
async function sendAtMaxRate(client: Client, seconds: number) {
  const otpIds: string[] = [];
  const latencies: number[] = [];
  let failed = 0;
  let n = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        // 10,000 phones: the per-phone limit is raised for the run, but every send still checks it.
        const phone = `+1415555${String(n++ % 10000).padStart(4, "0")}`;
        const started = performance.now();
        try {
          const response = await client.post("/v1/otp/send", { phone });
          latencies.push(performance.now() - started);
          if (response.status === 201 && typeof response.body.otp_id === "string")
            otpIds.push(response.body.otp_id);
          else failed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  return { otpIds, latencies, failed };
}

/**
 * Open loop at a fixed rate: requests leave on schedule whether or not earlier ones were
 * answered, and latency counts from the scheduled time (no coordinated omission).
 */
async function verifyAtFixedRate(client: Client, otpIds: string[]) {
  const total = VERIFY_RATE * DURATION_S;
  const latencies: number[] = [];
  let notOk = 0;
  const start = performance.now() + 50;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / VERIFY_RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      (async () => {
        // A wrong code: the full path (read, HMAC, the counting UPDATE); 100 attempts each, so none locks.
        try {
          const response = await client.post("/v1/otp/verify", {
            otp_id: otpIds[i % otpIds.length],
            code: "00000000",
          });
          latencies.push(performance.now() - due);
          if (response.status !== 200 || response.body.verified !== false) notOk++;
        } catch {
          latencies.push(performance.now() - due);
          notOk++;
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  return { latencies, notOk, seconds: (performance.now() - start) / 1000 };
}

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const databaseUrl = await freshDatabase(
    process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms",
    // Named by port: two runs on one machine (other engineers' too) never drop each other's database.
    `sms_bench_otp_${PORT}`,
  );
  const redisPrefix = `bench-otp-${Date.now()}`;
  const { key } = await createBenchAccount(databaseUrl, "BENCH");
  const url = `http://127.0.0.1:${PORT}`;
  const gatewayListen = listenOn("api-gateway", PORT, PORT + 100);
  const gateway = await startService(
    "api-gateway",
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: redisPrefix,
      ...gatewayListen.env,
      HOST: "127.0.0.1",
      DATABASE_POOL_SIZE: "8",
      OTP_SENDS_PER_WINDOW: "1000000",
      // The bench enters no codes: at the default share the pumping guard would pause the range
      // after 50 sends. At 0 % it refuses nothing but still counts every send, so its cost is measured.
      OTP_PUMPING_MIN_VERIFIED_PERCENT: "0",
      OTP_MAX_ATTEMPTS: "100",
    },
    gatewayListen.readyUrl,
  );
  try {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const client = jsonClient(url, headers, CONNECTIONS);
    await sendAtMaxRate(client, 2); // warm-up: JIT, pools, prepared statements
    const sendLoad = machineLoad();
    const sendCpu = cpuSecondsOf(gateway.pid);
    const sent = await sendAtMaxRate(client, DURATION_S);
    const sendCpuSeconds = cpuSecondsOf(gateway.pid) - sendCpu;
    console.log(`\nPOST /v1/otp/send, ${CONNECTIONS} connections, ${DURATION_S} s, load from node:http`);
    console.log(`  accepted/s  ${(sent.otpIds.length / DURATION_S).toFixed(0)}   (target ≥ 1000)`);
    console.log(`  latency ${describe(sent.latencies)}`);
    console.log(`  not 201  ${sent.failed}`);
    console.log(
      `  gateway CPU per send ${((sendCpuSeconds / sent.latencies.length) * 1e6).toFixed(0)} µs; ${sendLoad} before, ${machineLoad()} after`,
    );

    // The newest OTPs of their phones: none superseded by a later send.
    const verifyLoad = machineLoad();
    const verified = await verifyAtFixedRate(client, sent.otpIds.slice(-2000));
    client.close();
    console.log(
      `\nPOST /v1/otp/verify at a fixed ${VERIFY_RATE}/s for ${DURATION_S} s (wrong codes), load from node:http`,
    );
    console.log(`  done        ${verified.latencies.length} in ${verified.seconds.toFixed(1)} s`);
    console.log(`  latency ${describe(verified.latencies)}   (target p99 ≤ 20 ms)`);
    console.log(`  not 200     ${verified.notOk}`);
    console.log(`  ${verifyLoad} before, ${machineLoad()} after`);
  } finally {
    await stopService(gateway);
    await deleteRedisPrefix(redisUrl, redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
