import { Cluster, type Redis as StandaloneRedis } from "ioredis";
import type { Redis } from "./index";

/**
 * Every key matching `pattern`, in batches. SCAN walks one server: on a cluster it walks every
 * master (replicas hold copies, not more keys). Keys written during the scan may or may not show.
 */
export async function* scanKeys(redis: Redis, pattern: string, count = 500): AsyncGenerator<string[]> {
  const servers: StandaloneRedis[] = redis instanceof Cluster ? redis.nodes("master") : [redis];
  for (const server of servers) {
    let cursor = "0";
    do {
      const [next, keys] = await server.scan(cursor, "MATCH", pattern, "COUNT", count);
      cursor = next;
      if (keys.length) yield keys;
    } while (cursor !== "0");
  }
}

/**
 * Deletes every key matching `pattern` (never FLUSHALL: a Redis may be shared); resolves to how
 * many went. On a cluster a multi-key UNLINK must stay in one slot, so keys go one per command
 * (pipelined by the client).
 */
export async function deleteKeys(redis: Redis, pattern: string): Promise<number> {
  let deleted = 0;
  for await (const keys of scanKeys(redis, pattern)) {
    const counts =
      redis instanceof Cluster
        ? await Promise.all(keys.map((key) => redis.unlink(key)))
        : [await redis.unlink(...keys)];
    deleted += counts.reduce((sum, n) => sum + n, 0);
  }
  return deleted;
}
