// pnpm bench:idle — what the platform costs with nothing to do, as `npm start` runs it (every
// service and the carrier simulator, no traffic): the CPU of each process, of the PostgreSQL
// backends of its database and of Redis, as a share of one core, over BENCH_IDLE_SECONDS (20)
// after a 5 s warm-up. Twice: on a fresh database (one partition of the past), and on one with
// the partitions of the default retention (13 past weeks of the message tables, 30 days of
// deliveries and receipts, 7 of the outbox; docs/benchmarks.md#retained-weeks), where every
// periodic statement that is bounded from above only plans each retained partition.
// BENCH_IDLE_ONLY=fresh|retained runs one of the two.
import pg from "pg";
import { startCpuMeter } from "./cpu-meter";
import { machineLoad } from "./load-generator";
import { routeEverythingTo, startPlatform, startSimulator } from "./platform";
import { deleteRedisPrefix, freshDatabase, stopService } from "./support";

const SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const BASE = Number(process.env.BENCH_PORT ?? 4500);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measureIdle(retainedPartitions: boolean): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const databaseUrl = await freshDatabase(base, `sms_bench_idle_${BASE}`, { retainedPartitions });
  const redisPrefix = `bench-idle-${Date.now()}`;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const simulator = await startSimulator(BASE);
  try {
    await routeEverythingTo(db, simulator);
    const platform = await startPlatform({ base: BASE, databaseUrl, redisUrl, redisPrefix });
    try {
      await sleep(5000);
      const meter = await startCpuMeter({
        processes: [
          ...[...platform.processes].map(([name, child]): [string, number] => [name, child.pid!]),
          ["carrier-simulator", simulator.child.pid!],
        ],
        db,
        redisUrl,
      });
      for (let i = 0; i < SECONDS; i++) {
        await sleep(1000);
        await meter.sample();
      }
      const parts = await meter.stop();
      const share = (seconds: number) => `${((seconds / SECONDS) * 100).toFixed(2).padStart(6)} %`;
      console.log(
        `\n${retainedPartitions ? "Retained partitions (the default retention's)" : "A fresh database"}: CPU over ${SECONDS} s idle, share of one core`,
      );
      for (const [label, seconds] of parts) console.log(`  ${label.padEnd(66)} ${share(seconds)}`);
      const total = parts.reduce((sum, [, seconds]) => sum + seconds, 0);
      console.log(`  ${"all of them".padEnd(66)} ${share(total)}`);
    } finally {
      await platform.stop();
    }
  } finally {
    await stopService(simulator.child);
    await db.end();
    await deleteRedisPrefix(redisUrl, redisPrefix);
  }
}

async function main(): Promise<void> {
  console.log(`bench:idle: every service idle, ${SECONDS} s each round; ${machineLoad()}`);
  const only = process.env.BENCH_IDLE_ONLY;
  if (only !== "retained") await measureIdle(false);
  if (only !== "fresh") await measureIdle(true);
  console.log(`\n${machineLoad()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
