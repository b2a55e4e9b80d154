// pnpm bench:inbound — 10,000 single-part inbound messages through the platform as `npm start`
// runs it: the carrier simulator delivers them (POST /inbound/batch, deliver_sm over its SMPP
// binds) to dlr-ingest, which stores each one and its message.received outbox event; the
// scheduler's relay and webhook-delivery POST them to a local receiver. Prints the rate (first
// injection → last webhook), the integrity counts and the CPU per message of every process.
// Target: ≥ 2,000 inbound/s end to end, 0 lost, 0 duplicated.
//
//   BENCH_INBOUND     messages (10,000)     BENCH_INBOUND_CHUNK  messages per control call (1,000)
import os from "node:os";
import pg from "pg";
import { createSecretBox } from "@sms/secret-box";
import { generateSecret } from "@sms/webhook-signing";
import { describeCpu, startCpuMeter } from "./cpu-meter";
import { routeEverythingTo, startPlatform, startSimulator } from "./platform";
import { startWebhookReceiver } from "./pipeline-support";
import { BENCH_SECRETS, createBenchAccount, deleteRedisPrefix, freshDatabase, stopService } from "./support";

const TOTAL = Number(process.env.BENCH_INBOUND ?? 10_000);
const CHUNK = Number(process.env.BENCH_INBOUND_CHUNK ?? 1_000);
const BASE = Number(process.env.BENCH_PORT_BASE ?? 4700);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 300_000);
const NUMBER = "+14155550199";
const BENCH_OWN = new Set(["bench process (webhook receiver)"]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const textOf = (n: number) => `inbound bench ${n}`;

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const databaseUrl = await freshDatabase(base, "sms_bench_inbound");
  const redisPrefix = `bench-inbound-${Date.now()}`;
  const { accountId } = await createBenchAccount(databaseUrl, "BENCH");
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const receiver = await startWebhookReceiver(() => new Map());
  await db.query("INSERT INTO inbound_numbers (number, account_id) VALUES ($1, $2)", [NUMBER, accountId]);
  await db.query(
    "INSERT INTO webhook_endpoints (account_id, url, secret_sealed, updated_at) VALUES ($1, $2, $3, now())",
    [
      accountId,
      `http://127.0.0.1:${receiver.port}/hooks`,
      createSecretBox(BENCH_SECRETS.SECRET_ENCRYPTION_KEY).seal(generateSecret(), accountId),
    ],
  );
  const simulator = await startSimulator(BASE);
  await routeEverythingTo(db, simulator);
  const platform = await startPlatform({ base: BASE, databaseUrl, redisUrl, redisPrefix });
  try {
    // dlr-ingest binds as receiver within its refresh: wait for the simulator to see the bind.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const stats = (await (await fetch(`http://127.0.0.1:${simulator.httpPort}/stats`)).json()) as {
        binds: Array<{ state: string }>;
      };
      if (stats.binds.some((bind) => bind.state === "bound_rx" || bind.state === "bound_trx")) break;
      if (Date.now() > deadline) throw new Error(`no receiver bind: ${JSON.stringify(stats.binds)}`);
      await sleep(100);
    }
    const meter = await startCpuMeter({
      processes: [
        ...[...platform.processes].map(([name, child]): [string, number] => [name, child.pid!]),
        ["carrier-simulator", simulator.child.pid!],
        [
          "bench process (webhook receiver)",
          () => process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
        ],
      ],
      db,
      redisUrl,
    });
    const sampler = setInterval(() => void meter.sample().catch(() => undefined), 1000);

    const started = Date.now();
    const chunks = Array.from({ length: Math.ceil(TOTAL / CHUNK) }, (_, c) =>
      Array.from({ length: Math.min(CHUNK, TOTAL - c * CHUNK) }, (_, i) => ({
        from: `+4477009${String(c * CHUNK + i).padStart(5, "0")}`,
        to: NUMBER,
        text: textOf(c * CHUNK + i),
      })),
    );
    const answers = await Promise.all(
      chunks.map(async (messages) => {
        const response = await fetch(`http://127.0.0.1:${simulator.httpPort}/inbound/batch`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages }),
        });
        if (!response.ok) throw new Error(`POST /inbound/batch: ${response.status} ${await response.text()}`);
        return (await response.json()) as { acknowledged: number; refused: number };
      }),
    );
    const acknowledgedAt = Date.now();
    const acknowledged = answers.reduce((sum, a) => sum + a.acknowledged, 0);
    const refused = answers.reduce((sum, a) => sum + a.refused, 0);
    while (receiver.events.size < acknowledged && Date.now() - started < TIMEOUT_MS) await sleep(50);
    const lastWebhookAt = receiver.lastAt;
    clearInterval(sampler);
    const cpu = await meter.stop();

    const { rows } = await db.query<Record<string, string>>(
      `SELECT count(*) AS stored, count(DISTINCT text) AS distinct_texts,
              count(*) FILTER (WHERE account_id IS NULL) AS unassigned,
              (SELECT count(*) FROM outbox_events WHERE type = 'message.received') AS events
         FROM inbound_messages`,
    );
    const counts = Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
    const { rows: stored } = await db.query<{ id: string }>("SELECT id FROM inbound_messages");
    const webhookMessageIds = new Set([...receiver.events.keys()].map((key) => key.split(" ")[0]!));
    const withoutWebhook = stored.filter((row) => !webhookMessageIds.has(row.id)).length;
    const eventsWithTwoIds = [...receiver.events.values()].filter((ids) => ids.size > 1).length;
    const idRepeats = [...receiver.ids.values()].reduce((sum, n) => sum + n - 1, 0);
    const lost = TOTAL - counts.distinct_texts!;
    const duplicatedRows = counts.stored! - counts.distinct_texts!;
    const seconds = (lastWebhookAt - started) / 1000;

    console.log(`\nInbound: ${TOTAL} single-part messages, ${chunks.length} control calls of ≤ ${CHUNK}`);
    console.log(
      `  load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}; ${os.cpus().length} CPUs`,
    );
    console.log(
      `  carrier: ${acknowledged} deliver_sm acknowledged, ${refused} refused or unanswered, all by ${((acknowledgedAt - started) / 1000).toFixed(2)} s`,
    );
    console.log(
      `  stored ${counts.stored} (${counts.unassigned} unassigned), ${counts.events} message.received events; ` +
        `webhooks: ${receiver.events.size} events, last at ${seconds.toFixed(2)} s`,
    );
    console.log(`  end to end: ${(TOTAL / seconds).toFixed(0)} inbound/s (target ≥ 2000)`);
    console.log(
      `  lost ${lost}, stored twice ${duplicatedRows}, stored without a webhook ${withoutWebhook}, ` +
        `events with two webhook-ids ${eventsWithTwoIds} (all must be 0); retries of one webhook-id ${idRepeats}`,
    );
    const { lines, total } = describeCpu(cpu, TOTAL, BENCH_OWN);
    console.log("  CPU per inbound message:");
    for (const line of lines) console.log(`    ${line}`);
    console.log(`    ${"total".padEnd(66)} ${total.toFixed(0).padStart(6)} µs`);
  } finally {
    await platform.stop();
    await stopService(simulator.child);
    receiver.close();
    await db.end();
    await deleteRedisPrefix(redisUrl, redisPrefix);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
