import { Cluster, Redis as StandaloneRedis, type ClusterOptions, type RedisOptions } from "ioredis";
import { parseRedisUrl } from "./redis-url";

export { parseRedisUrl, type RedisTarget } from "./redis-url";
export { scanKeys, deleteKeys } from "./scan-keys";

/**
 * A connection made by {@link createRedis}: one server or a Redis Cluster. Callers use only
 * what both offer. Keys one command or script touches together must share a hash tag
 * (`{…}`) so they land in one cluster slot (docs/operations-runtime.md#redis-cluster).
 */
export type Redis = StandaloneRedis | Cluster;

/** Per-role options of every node connection. */
function connectionOptions(role: "command" | "queue"): RedisOptions {
  return {
    enableReadyCheck: true,
    // BullMQ workers block (BZPOPMIN…) and must wait out a reconnect: no retry limit.
    maxRetriesPerRequest: role === "queue" ? null : 1,
    // Command connections sit on request paths: a command waits at most this long
    // (also while reconnecting), then fails so the caller can answer 503.
    ...(role === "command" ? { commandTimeout: 1500 } : {}),
    connectTimeout: 2000,
    // A replica promoted or a server still loading: reconnect instead of failing every command.
    reconnectOnError: (error) => /READONLY|LOADING/.test(error.message),
  };
}

const backoff = (times: number) => Math.min(100 * 2 ** Math.min(times, 6), 3000);

/**
 * The one place that builds a Redis connection, from REDIS_URL: `redis://`/`rediss://` for one
 * server, `redis-cluster://host:port,host:port` (or `rediss-cluster://`) for a Redis Cluster.
 * `role: "queue"` connections (BullMQ workers and blocking commands) never give up on a
 * command; "command" connections fail a command within ~1.5 s when Redis is down, so
 * request paths answer 503 instead of waiting.
 */
export function createRedis(
  url: string,
  role: "command" | "queue" = "command",
  extra: RedisOptions = {},
): Redis {
  const target = parseRedisUrl(url);
  // Auto-pipelining sends the commands of concurrent requests issued in one tick as one write
  // (per node in a cluster): at a few thousand requests/s, per-command writes were ~15% of the gateway's CPU.
  const enableAutoPipelining = role === "command";
  let redis: Redis;
  if (target.mode === "standalone") {
    redis = new StandaloneRedis(target.url, {
      lazyConnect: false,
      ...connectionOptions(role),
      enableAutoPipelining,
      retryStrategy: backoff,
      ...extra,
    });
  } else {
    const options: ClusterOptions = {
      lazyConnect: false,
      enableReadyCheck: true,
      enableAutoPipelining,
      clusterRetryStrategy: backoff,
      // Writes and reads go to masters: our scripts read what they just wrote.
      scaleReads: "master",
      slotsRefreshTimeout: 2000,
      redisOptions: {
        ...connectionOptions(role),
        ...(target.username ? { username: target.username } : {}),
        ...(target.password ? { password: target.password } : {}),
        ...(target.tls ? { tls: {} } : {}),
        ...extra,
      },
    };
    redis = new Cluster(target.nodes, options);
  }
  // Errors surface through the failed commands; an unhandled 'error' event would crash the process.
  redis.on("error", () => undefined);
  return redis;
}
