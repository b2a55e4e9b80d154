// pnpm bench:gateway — POST /v1/sms/send under load, and a 10,000-item bulk.
// Gateway, PostgreSQL, Redis and the load generator share this machine.
// Targets: ≥ 3,000 accepted requests/s, p99 ≤ 50 ms, zero errors; bulk of 10,000 in ≤ 1 s.
import { cpuSecondsOf, machineLoad, postLoad } from "./load-generator";
import {
  createBenchAccount,
  deleteRedisPrefix,
  freshDatabase,
  listenOn,
  startService,
  stopService,
} from "./support";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const PORT = Number(process.env.BENCH_PORT ?? 3900);
/** BENCH_SKIP_BULK=1: the send phase only (to profile it without the bulk requests). */
const SKIP_BULK = process.env.BENCH_SKIP_BULK === "1";

async function main(): Promise<void> {
  const databaseUrl = await freshDatabase(
    process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms",
    // Named by port: two runs on one machine (other engineers' too) never drop each other's database.
    `sms_bench_gateway_${PORT}`,
  );
  const redisPrefix = `bench-gw-${Date.now()}`;
  const { key } = await createBenchAccount(databaseUrl, "BENCH");
  const url = `http://127.0.0.1:${PORT}`;
  const gatewayListen = listenOn("api-gateway", PORT, PORT + 100);
  const gateway = await startService(
    "api-gateway",
    {
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      REDIS_PREFIX: redisPrefix,
      ...gatewayListen.env,
      HOST: "127.0.0.1",
      DATABASE_POOL_SIZE: "8",
      GATEWAY_WORKERS: process.env.GATEWAY_WORKERS ?? "1",
    },
    gatewayListen.readyUrl,
  );
  try {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    // Warm-up: JIT, pools, prepared statements.
    await postLoad({
      url: `${url}/v1/sms/send`,
      headers,
      body: JSON.stringify({ to: "+14155550100", message: "warm up", sender_id: "BENCH" }),
      connections: 10,
      seconds: 3,
    });

    const loadBefore = machineLoad();
    const cpuBefore = cpuSecondsOf(gateway.pid);
    const result = await postLoad({
      url: `${url}/v1/sms/send`,
      headers,
      body: JSON.stringify({
        to: "+14155550100",
        message: "Your verification code is 123456",
        sender_id: "BENCH",
      }),
      connections: CONNECTIONS,
      seconds: DURATION_S,
    });
    const cpuSeconds = cpuSecondsOf(gateway.pid) - cpuBefore;
    console.log(
      `\nPOST /v1/sms/send, ${CONNECTIONS} connections, ${DURATION_S} s, load from ${result.generator}, ${process.env.GATEWAY_WORKERS ?? "1"} gateway process(es)`,
    );
    console.log(`  accepted requests/s  ${(result.accepted / DURATION_S).toFixed(0)}   (target ≥ 3000)`);
    const { p50, p90, p99, max } = result.latencyMs;
    console.log(`  latency p50 ${p50} ms  p90 ${p90} ms  p99 ${p99} ms  max ${max} ms   (target p99 ≤ 50)`);
    console.log(`  non-202 ${result.nonSuccess}  errors ${result.errors}   (target 0)`);
    console.log(
      `  gateway CPU per accepted request ${((cpuSeconds / result.accepted) * 1e6).toFixed(0)} µs (${cpuSeconds.toFixed(1)} CPU s)`,
    );
    console.log(`  ${loadBefore} before, ${machineLoad()} after`);
    if (SKIP_BULK) return;

    const items = Array.from({ length: 10_000 }, (_, i) => ({
      to: `+1415555${String(i % 10000).padStart(4, "0")}`,
      message: `Bulk message number ${i}`,
    }));
    const body = JSON.stringify({ sender_id: "BENCH", messages: items });
    const times: number[] = [];
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      const response = await fetch(`${url}/v1/sms/bulk`, { method: "POST", headers, body });
      const payload = (await response.json()) as { accepted?: number };
      times.push(performance.now() - started);
      if (response.status !== 202 || payload.accepted !== 10_000)
        throw new Error(`bulk failed: ${response.status} ${JSON.stringify(payload).slice(0, 200)}`);
    }
    console.log(`\nPOST /v1/sms/bulk with 10,000 items (${(body.length / 1024).toFixed(0)} KiB), 3 runs`);
    console.log(`  accepted in ${times.map((t) => `${t.toFixed(0)} ms`).join(", ")}   (target ≤ 1000 ms)`);
  } finally {
    await stopService(gateway);
    await deleteRedisPrefix(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
