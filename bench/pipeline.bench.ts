// pnpm bench:pipeline — 20,000 messages through the whole platform on this machine:
// gateway (HTTP) → sms.dispatch → dispatcher → carrier simulator (SMPP) → receipts →
// dlr-ingest → delivered in PostgreSQL. Prints the rate of each stage so the slowest
// shows. Target (issue 3): ≥ 1,500 messages/s first request → last delivered, zero lost,
// zero duplicated.
import autocannon from "autocannon";
import pg from "pg";
import { createBenchAccount, deleteRedisPrefix, freshDatabase, startService, stopService } from "./support";

const TOTAL = Number(process.env.BENCH_MESSAGES ?? 20_000);
const DISPATCHERS = Number(process.env.BENCH_DISPATCHERS ?? 1);
const GATEWAY_PORT = 3901;

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const databaseUrl = await freshDatabase(base, "sms_bench_pipeline");
  const redisPrefix = `bench-pipe-${Date.now()}`;
  const common = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    REDIS_PREFIX: redisPrefix,
  };
  const { key } = await createBenchAccount(databaseUrl, "BENCH");
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, transmitter_binds, receiver_binds, window_size, submits_per_second, updated_at)
     VALUES ('sim', 'simulator', '127.0.0.1', 3902, 'platform', 'platform', 2, 1, 100, 100000, now())`,
  );
  await db.query("INSERT INTO routes (id, prefix, carrier_id, priority) VALUES ('rte_all', '+', 'sim', 0)");

  const children = [
    await startService(
      "carrier-simulator",
      {
        ...common,
        CARRIER_SIM_HOST: "127.0.0.1",
        CARRIER_SIM_SMPP_PORT: "3902",
        CARRIER_SIM_HTTP_PORT: "3903",
        CARRIER_SIM_RECEIPT_DELAY_MS: "50",
        CARRIER_SIM_WINDOW_SIZE: "200",
        CARRIER_SIM_MAGIC_NUMBERS: "false",
      },
      "http://127.0.0.1:3903/readyz",
    ),
    await startService(
      "api-gateway",
      { ...common, PORT: String(GATEWAY_PORT), HOST: "127.0.0.1" },
      `http://127.0.0.1:${GATEWAY_PORT}/readyz`,
    ),
    await startService("dlr-ingest", { ...common, PORT: "3904" }, "http://127.0.0.1:3904/readyz"),
  ];
  for (let i = 0; i < DISPATCHERS; i++)
    children.push(
      await startService(
        "dispatcher",
        { ...common, PORT: String(3910 + i) },
        `http://127.0.0.1:${3910 + i}/readyz`,
      ),
    );

  let sampling = true;
  try {
    const started = Date.now();
    const stageDone: Record<string, number> = {};
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await db.query<{
          accepted: string;
          submitted: string;
          delivered: string;
          failed: string;
        }>(
          `SELECT count(*) AS accepted,
                  count(*) FILTER (WHERE status IN ('sent', 'delivered', 'failed')) AS submitted,
                  count(*) FILTER (WHERE status = 'delivered') AS delivered,
                  count(*) FILTER (WHERE status = 'failed') AS failed FROM messages`,
        );
        const counts = rows[0]!;
        for (const stage of ["accepted", "submitted", "delivered"] as const) {
          if (!stageDone[stage] && Number(counts[stage]) >= TOTAL) stageDone[stage] = Date.now();
        }
        if (stageDone.delivered || Number(counts.failed) > 0) break;
        if (Date.now() - started > 180_000) throw new Error(`timed out: ${JSON.stringify(counts)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const load = await autocannon({
      url: `http://127.0.0.1:${GATEWAY_PORT}/v1/sms/send`,
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ to: "+14155550100", message: "Pipeline benchmark message", sender_id: "BENCH" }),
      connections: 50,
      amount: TOTAL,
    });
    stageDone.http ??= Date.now();
    await sampler;
    sampling = false;
    const seconds = (stage: string) => ((stageDone[stage] ?? NaN) - started) / 1000;
    const { rows: integrity } = await db.query<{
      messages: string;
      segments: string;
      duplicates: string;
      lost: string;
    }>(
      `SELECT (SELECT count(*) FROM messages) AS messages,
              (SELECT count(*) FROM message_segments) AS segments,
              (SELECT count(*) FROM message_segments WHERE attempts > 1) AS duplicates,
              (SELECT count(*) FROM messages WHERE status NOT IN ('delivered', 'failed')) AS lost`,
    );
    console.log(`\nPipeline: ${TOTAL} messages, ${DISPATCHERS} dispatcher(s), everything on this machine`);
    console.log(`  HTTP 202s            ${load["2xx"]} (non-2xx ${load.non2xx}, errors ${load.errors})`);
    console.log(
      `  accepted (gateway)   all by ${seconds("accepted").toFixed(2)} s  → ${(TOTAL / seconds("accepted")).toFixed(0)} msg/s`,
    );
    console.log(
      `  submitted (SMPP)     all by ${seconds("submitted").toFixed(2)} s  → ${(TOTAL / seconds("submitted")).toFixed(0)} msg/s`,
    );
    console.log(
      `  delivered (receipts) all by ${seconds("delivered").toFixed(2)} s  → ${(TOTAL / seconds("delivered")).toFixed(0)} msg/s end to end   (target ≥ 1500)`,
    );
    console.log(`  integrity: ${JSON.stringify(integrity[0])} (lost and duplicates must be 0)`);
  } finally {
    sampling = false;
    for (const child of children.reverse()) await stopService(child);
    await db.end();
    await deleteRedisPrefix(common.REDIS_URL, redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
