// pnpm bench:otp — POST /v1/otp/verify at a fixed 500 requests/s, and POST /v1/otp/send at
// the most it accepts. Gateway, PostgreSQL, Redis and the load generator share this machine.
// Targets (issue 5): verify p99 ≤ 20 ms at 500/s; send ≥ 1,000 accepted/s.
import { createBenchAccount, deleteRedisPrefix, freshDatabase, startService, stopService } from "./support";

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
async function sendAtMaxRate(url: string, headers: Record<string, string>, seconds: number) {
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
        const response = await fetch(`${url}/v1/otp/send`, {
          method: "POST",
          headers,
          body: JSON.stringify({ phone }),
        });
        const body = (await response.json()) as { otp_id?: string };
        latencies.push(performance.now() - started);
        if (response.status === 201 && body.otp_id) otpIds.push(body.otp_id);
        else failed++;
      }
    }),
  );
  return { otpIds, latencies, failed };
}

/**
 * Open loop at a fixed rate: requests leave on schedule whether or not earlier ones were
 * answered, and latency counts from the scheduled time (no coordinated omission).
 */
async function verifyAtFixedRate(url: string, headers: Record<string, string>, otpIds: string[]) {
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
        const response = await fetch(`${url}/v1/otp/verify`, {
          method: "POST",
          headers,
          body: JSON.stringify({ otp_id: otpIds[i % otpIds.length], code: "00000000" }),
        });
        const body = (await response.json()) as { verified?: boolean };
        latencies.push(performance.now() - due);
        if (response.status !== 200 || body.verified !== false) notOk++;
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
    "sms_bench_otp",
  );
  const redisPrefix = `bench-otp-${Date.now()}`;
  const { key } = await createBenchAccount(databaseUrl, "BENCH");
  const url = `http://127.0.0.1:${PORT}`;
  const gateway = await startService(
    "api-gateway",
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: redisPrefix,
      PORT: String(PORT),
      HOST: "127.0.0.1",
      DATABASE_POOL_SIZE: "8",
      OTP_SENDS_PER_WINDOW: "1000000",
      OTP_MAX_ATTEMPTS: "100",
    },
    `${url}/readyz`,
  );
  try {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    await sendAtMaxRate(url, headers, 2); // warm-up: JIT, pools, prepared statements
    const sent = await sendAtMaxRate(url, headers, DURATION_S);
    console.log(`\nPOST /v1/otp/send, ${CONNECTIONS} connections, ${DURATION_S} s, load from Node fetch`);
    console.log(`  accepted/s  ${(sent.otpIds.length / DURATION_S).toFixed(0)}   (target ≥ 1000)`);
    console.log(`  latency ${describe(sent.latencies)}`);
    console.log(`  not 201  ${sent.failed}`);

    // The newest OTPs of their phones: none superseded by a later send.
    const verified = await verifyAtFixedRate(url, headers, sent.otpIds.slice(-2000));
    console.log(
      `\nPOST /v1/otp/verify at a fixed ${VERIFY_RATE}/s for ${DURATION_S} s (wrong codes), load from Node fetch`,
    );
    console.log(`  done        ${verified.latencies.length} in ${verified.seconds.toFixed(1)} s`);
    console.log(`  latency ${describe(verified.latencies)}   (target p99 ≤ 20 ms)`);
    console.log(`  not 200     ${verified.notOk}`);
  } finally {
    await stopService(gateway);
    await deleteRedisPrefix(redisUrl, redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
