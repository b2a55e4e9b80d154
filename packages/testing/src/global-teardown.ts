import pg from "pg";
import { Redis } from "ioredis";
import { withDatabase } from "./servers";

/** Drops every database of this run and deletes its Redis keys. */
export default async function globalTeardown(): Promise<void> {
  const runId = process.env.TEST_RUN_ID;
  const postgresUrl = process.env.TEST_POSTGRES_URL;
  const redisUrl = process.env.TEST_REDIS_URL;
  if (runId && postgresUrl) {
    const admin = new pg.Client({ connectionString: withDatabase(postgresUrl, "postgres") });
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE $1",
      [`${runId}_%`],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.end();
  }
  if (runId && redisUrl) {
    const redis = new Redis(redisUrl);
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `*${runId}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== "0");
    redis.disconnect();
  }
  await globalThis.__testServersStop?.();
}
