import crypto from "node:crypto";
import pg from "pg";
import { withDatabase } from "./servers";

/** One test's private slice of PostgreSQL and Redis. */
export interface TestWorld {
  /** A fresh, migrated database of its own. */
  databaseUrl: string;
  redisUrl: string;
  /** A Redis key prefix no other test or run uses. */
  redisPrefix: string;
  /** Environment for a service process started by the test. */
  env: Record<string, string>;
  /**
   * A pool on this world's database, ended by {@link destroy}. It ignores connection errors:
   * pool.end() resolves before PostgreSQL has seen every Terminate, so the DROP … WITH (FORCE)
   * can still signal a closing connection, and without a listener that 'error' surfaces later,
   * in whichever test file the Jest worker runs next.
   */
  pool(max?: number): pg.Pool;
  /** Ends the pools it opened and drops the database. */
  destroy(): Promise<void>;
}

function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through Jest (its global setup sets it)`);
  return value;
}

/** Clones the run's migrated template into a new database and picks a Redis prefix. */
export async function createTestWorld(): Promise<TestWorld> {
  const runId = requireEnv("TEST_RUN_ID");
  const postgresUrl = requireEnv("TEST_POSTGRES_URL");
  const redisUrl = requireEnv("TEST_REDIS_URL");
  const template = requireEnv("TEST_TEMPLATE_DB");
  const suffix = crypto.randomBytes(4).toString("hex");
  const database = `${runId}_w${suffix}`;
  const admin = new pg.Client({ connectionString: withDatabase(postgresUrl, "postgres") });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${database}" TEMPLATE "${template}"`);
  } finally {
    await admin.end();
  }
  const databaseUrl = withDatabase(postgresUrl, database);
  const redisPrefix = `${runId}:${suffix}`;
  const pools: pg.Pool[] = [];
  return {
    databaseUrl,
    redisUrl,
    redisPrefix,
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: redisPrefix,
      LOG_LEVEL: "warn",
      // The deployment's secrets: fresh per world, as no two deployments share them.
      SECRET_ENCRYPTION_KEY: crypto.randomBytes(32).toString("base64"),
      OTP_HMAC_SECRET: crypto.randomBytes(32).toString("base64url"),
    },
    pool(max = 4) {
      const pool = new pg.Pool({ connectionString: databaseUrl, max });
      pool.on("error", () => undefined);
      pools.push(pool);
      return pool;
    },
    async destroy() {
      await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => undefined)));
      const client = new pg.Client({ connectionString: withDatabase(postgresUrl, "postgres") });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
      await client.end();
    },
  };
}
