import crypto from "node:crypto";
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { generateApiKey, PERMISSIONS } from "@sms/auth";
import type { PartitionedTable } from "@sms/db";
import { newId } from "@sms/ids";
import { serviceOf } from "../scripts/lanes.mjs";
// Relative: the one list of services with an internal health port, and the one layout of a
// database converted long ago, without a dependency on @sms/testing.
import { WITH_HEALTH_PORT } from "../packages/testing/src/health-port";
import { partitionedSince } from "../packages/testing/src/partitions";

export const root = path.resolve(__dirname, "../..");

/**
 * A fresh, migrated database for one benchmark run (dropped first if it exists); with
 * `retainedPartitions` (default: BENCH_RETAINED_PARTITIONS=1) the partitions of the default retention.
 */
export async function freshDatabase(
  baseUrl: string,
  name: string,
  options: { retainedPartitions?: boolean } = {},
): Promise<string> {
  const admin = new URL(baseUrl);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  execFileSync("bash", [path.join(root, "scripts/migrate.sh")], {
    env: { ...process.env, DATABASE_URL: url.toString() },
    stdio: "pipe",
  });
  if (options.retainedPartitions ?? process.env.BENCH_RETAINED_PARTITIONS === "1")
    await retainedPartitions(url.toString());
  return url.toString();
}

/**
 * The days of partitions a platform holds under the default retention (docs/operations.md#retention),
 * counted back from now: 13 weeks of the message tables, 30 days of deliveries and receipts, 7 of
 * the outbox.
 */
const RETAINED_DAYS: Record<PartitionedTable, number> = {
  messages: 91,
  message_events: 91,
  message_segments: 91,
  webhook_deliveries: 30,
  carrier_receipts: 30,
  outbox_events: 7,
};

/**
 * BENCH_RETAINED_PARTITIONS=1: a fresh database has one partition of everything before the
 * migrations' bound (next week), so a statement that bounds its ids from above only plans one
 * partition of the past there. A platform that has run for its retention plans every retained
 * one: this gives the fresh (empty) database those partitions, as e2e/message-weeks does.
 */
async function retainedPartitions(databaseUrl: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const now = Date.now();
    for (const [table, days] of Object.entries(RETAINED_DAYS) as Array<[PartitionedTable, number]>)
      await partitionedSince(
        pool,
        [table],
        new Date(now - days * 86_400_000),
        new Date(now + 7 * 86_400_000),
      );
  } finally {
    await pool.end();
  }
}

/**
 * An account with effectively unlimited credits, and its key. Its limits are effectively
 * unlimited too, or with `defaultLimits` the ones a new account gets (100 messages/s, …).
 */
export async function createBenchAccount(
  databaseUrl: string,
  senderId: string,
  options: { defaultLimits?: boolean } = {},
): Promise<{ accountId: string; key: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const accountId = newId("acc");
  const apiKey = generateApiKey();
  await client.query(
    options.defaultLimits
      ? "INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'bench', 1000000000, now())"
      : `INSERT INTO accounts (id, name, balance, requests_per_second, messages_per_second, daily_quota, max_batch_size, updated_at)
     VALUES ($1, 'bench', 1000000000, 1000000, 1000000, 1000000000, 10000, now())`,
    [accountId],
  );
  await client.query("INSERT INTO sender_ids (id, account_id, value) VALUES ($1, $2, $3)", [
    newId("snd"),
    accountId,
    senderId,
  ]);
  await client.query(
    "INSERT INTO api_keys (id, account_id, name, prefix, hash, permissions) VALUES ($1, $2, 'bench', $3, $4, $5)",
    [newId("key"), accountId, apiKey.prefix, apiKey.hash, [...PERMISSIONS]],
  );
  await client.end();
  return { accountId, key: apiKey.key };
}

// One run's deployment secrets, shared by the services it starts (the gateway seals what the dispatcher opens).
export const BENCH_SECRETS = {
  SECRET_ENCRYPTION_KEY: process.env.SECRET_ENCRYPTION_KEY ?? crypto.randomBytes(32).toString("base64"),
  OTP_HMAC_SECRET: process.env.OTP_HMAC_SECRET ?? crypto.randomBytes(32).toString("base64"),
};

/**
 * The background workers run at PROCESS_NICE 10, as `npm start` runs them (scripts/run-all.mjs):
 * the benches measure the platform as shipped. BACKGROUND_NICE=0 runs every process alike.
 */
const BACKGROUND = new Set<string>(
  JSON.parse(readFileSync(path.join(root, "scripts", "background-services.json"), "utf8")),
);
export const BACKGROUND_NICE = process.env.BACKGROUND_NICE ?? "10";

/** V8 flags of the services that need them, as the container image and `npm start` give them. */
const NODE_FLAGS: Record<string, string[]> = JSON.parse(
  readFileSync(path.join(root, "scripts", "node-flags.json"), "utf8"),
);

/** Whether `name` is a built service or a lane of one: npm start skips the others, and so do the benches. */
export function isRunnable(name: string): boolean {
  return existsSync(path.join(root, "services", serviceOf(name), "dist", "main.js"));
}

/** Every service a bench started: a bench that fails half-way (a service that never became ready) leaves none running. */
const started = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGKILL");
});

/**
 * A service's PORT, its HEALTH_PORT when its /readyz is on an internal port (the gateway, the
 * dashboard: their public port answers /healthz only; `healthPort` is used for those only),
 * and the URL of its /readyz, for startService.
 */
export function listenOn(
  name: string,
  port: number | string,
  healthPort: number | string,
): { env: Record<string, string>; readyUrl: string } {
  const internal = WITH_HEALTH_PORT.has(serviceOf(name));
  const ready = String(internal ? healthPort : port);
  return {
    env: { PORT: String(port), ...(internal ? { HEALTH_PORT: ready } : {}) },
    readyUrl: `http://127.0.0.1:${ready}/readyz`,
  };
}

/** Starts a built service (or a lane of one) as its own process and waits for its /readyz. */
export async function startService(
  name: string,
  env: Record<string, string>,
  readyUrl: string,
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      ...(NODE_FLAGS[serviceOf(name)] ?? []),
      // Last, so a run can override them (a flag given twice takes its last value).
      ...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean),
      path.join(root, "services", serviceOf(name), "dist", "main.js"),
    ],
    {
      env: {
        ...process.env,
        LOG_LEVEL: "warn",
        ...BENCH_SECRETS,
        ...(BACKGROUND.has(name) ? { PROCESS_NICE: BACKGROUND_NICE } : {}),
        ...env,
      },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  started.add(child);
  child.once("exit", () => started.delete(child));
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(readyUrl)).ok) return child;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${name} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Deletes a benchmark's Redis keys (its prefix is unique per run). */
export async function deleteRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(redisUrl);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== "0");
  redis.disconnect();
}

export async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

export { laneSettings } from "../scripts/lanes.mjs";
