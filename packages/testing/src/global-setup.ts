import { execFileSync } from "node:child_process";
import path from "node:path";
import crypto from "node:crypto";
import pg from "pg";
import { locateServers, withDatabase } from "./servers";

declare global {
  var __testServersStop: (() => Promise<void>) | undefined;
}

/**
 * Once per Jest run: find PostgreSQL and Redis, migrate a template database that
 * every test world clones (CREATE DATABASE … TEMPLATE is much faster than migrating),
 * and pick the run id that prefixes every database and Redis key of this run.
 */
export default async function globalSetup(): Promise<void> {
  const { servers, stop } = await locateServers();
  globalThis.__testServersStop = stop;
  const runId = `t${Date.now().toString(36)}${crypto.randomBytes(3).toString("hex")}`;
  const template = `${runId}_tpl`;
  const admin = new pg.Client({ connectionString: withDatabase(servers.postgresUrl, "postgres") });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${template}"`);
  await admin.end();
  const root = path.resolve(__dirname, "../../..");
  try {
    execFileSync("bash", [path.join(root, "scripts/prisma.sh"), "migrate", "deploy"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: withDatabase(servers.postgresUrl, template) },
      stdio: "pipe",
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`migrating the test template database failed:\n${stdout ?? ""}${stderr ?? ""}`, {
      cause: error,
    });
  }
  process.env.TEST_RUN_ID = runId;
  process.env.TEST_POSTGRES_URL = servers.postgresUrl;
  process.env.TEST_REDIS_URL = servers.redisUrl;
  process.env.TEST_TEMPLATE_DB = template;
  process.env.LOG_SILENT ??= "true";
}
