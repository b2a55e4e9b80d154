// pnpm bench:bytes — what one message costs PostgreSQL on disk and in row writes: BENCH_MESSAGES
// (20,000) real messages through the platform (gateway → dispatcher → carrier simulator →
// receipts → dlr-ingest, and the scheduler's relay → webhook-delivery → a local receiver, three
// webhooks per message: queued, sent, delivered). Once every webhook has arrived and every
// service has stopped it runs VACUUM ANALYZE and prints, per table, the bytes per message
// (pg_total_relation_size: heap, indexes and TOAST) and the rows inserted, updated and deleted
// per message (pg_stat_user_tables, counted from after the setup). Target: ≤ 1.5 KB
// per message in all tables.
import os from "node:os";
import { execFileSync } from "node:child_process";
import pg from "pg";
import { createSecretBox } from "@sms/secret-box";
import { generateSecret } from "@sms/webhook-signing";
import { readIntegrity, startWebhookReceiver } from "./pipeline-support";
import { startPlatform, startSimulator, routeEverythingTo } from "./platform";
import {
  BENCH_SECRETS,
  createBenchAccount,
  deleteRedisPrefix,
  freshDatabase,
  root,
  stopService,
} from "./support";

const TOTAL = Number(process.env.BENCH_MESSAGES ?? 20_000);
const BULK_SIZE = 1000;
const BASE_PORT = 4300;
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface TableFigures {
  table: string;
  bytes: number;
  /** Of `bytes`, the heap's free space (pgstattuple_approx): dead versions the VACUUM freed for reuse. */
  free: number;
  inserted: number;
  updated: number;
  deleted: number;
}

/** Every user table's size and its row writes so far (the statistics of this database only). */
async function readTables(db: pg.Client, withFree = false): Promise<Map<string, TableFigures>> {
  const { rows } = await db.query<{
    table: string;
    bytes: string;
    free: string;
    ins: string;
    upd: string;
    del: string;
  }>(
    // A partitioned table's figures are its partitions' together.
    `SELECT COALESCE((SELECT inhparent::regclass::text FROM pg_inherits WHERE inhrelid = relid), relname) AS table,
            sum(pg_total_relation_size(relid)) AS bytes,
            ${withFree ? "sum(CASE WHEN (SELECT relkind FROM pg_class WHERE oid = relid) = 'r' THEN (pgstattuple_approx(relid)).approx_free_space ELSE 0 END)" : "0"} AS free,
            sum(n_tup_ins) AS ins, sum(n_tup_upd) AS upd, sum(n_tup_del) AS del
     FROM pg_stat_user_tables WHERE schemaname = 'public' GROUP BY 1`,
  );
  return new Map(
    rows.map((r) => [
      r.table,
      {
        table: r.table,
        bytes: Number(r.bytes),
        free: Number(r.free),
        inserted: Number(r.ins),
        updated: Number(r.upd),
        deleted: Number(r.del),
      },
    ]),
  );
}

/** Sends TOTAL messages in bulk requests of BULK_SIZE, two at a time; returns how many were accepted. */
async function send(gatewayUrl: string, key: string): Promise<number> {
  let accepted = 0;
  let next = 0;
  const batches = Math.ceil(TOTAL / BULK_SIZE);
  const worker = async () => {
    while (next < batches) {
      const b = next++;
      const size = Math.min(BULK_SIZE, TOTAL - b * BULK_SIZE);
      const messages = Array.from({ length: size }, (_, i) => ({
        to: `+1415${String(5_000_000 + b * BULK_SIZE + i).padStart(7, "0")}`,
        message: "Bytes benchmark message",
      }));
      for (let attempt = 1; ; attempt++) {
        const response = await fetch(`${gatewayUrl}/v1/sms/bulk`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "idempotency-key": `bytes-${b}`,
          },
          body: JSON.stringify({ sender_id: "BENCH", messages }),
        });
        const body = (await response.json()) as { accepted?: number };
        if (response.ok) {
          accepted += body.accepted ?? 0;
          break;
        }
        if (attempt >= 5) throw new Error(`bulk ${b}: HTTP ${response.status}`);
        await sleep(500 * attempt);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return accepted;
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/sms";
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const databaseUrl = await freshDatabase(base, "sms_bench_bytes");
  const redisPrefix = `bench-bytes-${Date.now()}`;
  const { accountId, key } = await createBenchAccount(databaseUrl, "BENCH");
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const receiver = await startWebhookReceiver(() => new Map());
  await db.query(
    "INSERT INTO webhook_endpoints (account_id, url, secret_sealed, updated_at) VALUES ($1, $2, $3, now())",
    [
      accountId,
      `http://127.0.0.1:${receiver.port}/hooks`,
      createSecretBox(BENCH_SECRETS.SECRET_ENCRYPTION_KEY).seal(generateSecret(), accountId),
    ],
  );
  const simulator = await startSimulator(BASE_PORT);
  await routeEverythingTo(db, simulator);
  let platform: Awaited<ReturnType<typeof startPlatform>> | undefined;
  try {
    platform = await startPlatform({ base: BASE_PORT, databaseUrl, redisUrl, redisPrefix });
    const before = await readTables(db);
    const started = Date.now();
    const accepted = await send(platform.gatewayUrl, key);
    const expectedWebhooks = accepted * 3;
    for (;;) {
      const { rows } = await db.query<{ open: string }>(
        "SELECT count(*) AS open FROM messages WHERE status NOT IN ('delivered', 'failed', 'canceled')",
      );
      if (Number(rows[0]!.open) === 0 && receiver.ids.size >= expectedWebhooks) break;
      if (Date.now() - started > TIMEOUT_MS)
        throw new Error(
          `timed out: ${rows[0]!.open} open, ${receiver.ids.size}/${expectedWebhooks} webhooks`,
        );
      await sleep(250);
    }
    // Until the deliveries are marked sent in the database, not only received.
    for (;;) {
      const { rows } = await db.query<{ open: string }>(
        "SELECT count(*) AS open FROM webhook_deliveries WHERE status <> 'succeeded'",
      );
      if (Number(rows[0]!.open) === 0 || Date.now() - started > TIMEOUT_MS) break;
      await sleep(250);
    }
    const seconds = (Date.now() - started) / 1000;
    await platform.stop();
    platform = undefined;
    await stopService(simulator.child);
    // Statistics reach pg_stat_user_tables when a backend flushes them (at the latest ~1 s after
    // its last transaction; the services have exited, so their backends have gone).
    await sleep(1500);
    const integrity = await readIntegrity(db);
    execFileSync("psql", [databaseUrl, "-qc", "VACUUM ANALYZE"], { stdio: "inherit", cwd: root });
    // These machines run PostgreSQL with autovacuum off: the updates' dead versions stay in the
    // files until this VACUUM frees them for reuse (it does not shrink the files). Where autovacuum
    // keeps up, new rows fill that space instead of growing the files.
    await db.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const after = await readTables(db, true);
    const tables = [...after.values()]
      .map((t) => {
        const b = before.get(t.table);
        return {
          table: t.table,
          bytes: t.bytes,
          free: t.free,
          inserted: t.inserted - (b?.inserted ?? 0),
          updated: t.updated - (b?.updated ?? 0),
          deleted: t.deleted - (b?.deleted ?? 0),
        };
      })
      .filter((t) => t.inserted + t.updated + t.deleted > 0)
      .sort((a, b) => b.bytes - a.bytes);
    const per = (n: number) => (n / accepted).toFixed(2);
    console.log(
      `\nBytes: ${accepted} messages accepted, ${receiver.ids.size}/${expectedWebhooks} webhooks received in ${seconds.toFixed(1)} s`,
    );
    console.log(
      `  load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    console.log(
      `  ${"table".padEnd(24)} ${"bytes/msg".padStart(10)} ${"free/msg".padStart(9)} ${"ins/msg".padStart(8)} ${"upd/msg".padStart(8)} ${"del/msg".padStart(8)}`,
    );
    for (const t of tables)
      console.log(
        `  ${t.table.padEnd(24)} ${(t.bytes / accepted).toFixed(0).padStart(10)} ${(t.free / accepted).toFixed(0).padStart(9)} ${per(t.inserted).padStart(8)} ${per(t.updated).padStart(8)} ${per(t.deleted).padStart(8)}`,
      );
    const sum = (pick: (t: TableFigures) => number) => tables.reduce((s, t) => s + pick(t), 0);
    const writes = sum((t) => t.inserted + t.updated + t.deleted);
    console.log(
      `  ${"total".padEnd(24)} ${(sum((t) => t.bytes) / accepted).toFixed(0).padStart(10)} ${(sum((t) => t.free) / accepted).toFixed(0).padStart(9)} ${per(sum((t) => t.inserted)).padStart(8)} ${per(sum((t) => t.updated)).padStart(8)} ${per(sum((t) => t.deleted)).padStart(8)}`,
    );
    console.log(`  row writes per message ${per(writes)}   (target: ≤ 1,536 bytes per message)`);
    console.log(`  integrity: ${JSON.stringify(integrity)}`);
    // An index no query of the run read is a candidate to drop (or to make partial).
    const { rows: unused } = await db.query<{ index: string; bytes: string }>(
      `SELECT indexrelname AS index, pg_relation_size(indexrelid) AS bytes FROM pg_stat_user_indexes
       WHERE idx_scan = 0 AND pg_relation_size(indexrelid) > 8192 * 4 ORDER BY 2 DESC`,
    );
    for (const index of unused)
      console.log(`  unread index ${index.index}: ${(Number(index.bytes) / accepted).toFixed(0)} bytes/msg`);
  } finally {
    await platform?.stop();
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
