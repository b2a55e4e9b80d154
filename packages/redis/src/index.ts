import { Redis, type RedisOptions } from "ioredis";

export type { Redis };

/**
 * The one place that builds a Redis connection.
 * `role: "queue"` connections (BullMQ workers and blocking commands) need
 * `maxRetriesPerRequest: null`; "command" connections fail a command within
 * ~1.5 s when Redis is down, so request paths answer 503 instead of waiting.
 */
export function createRedis(
  url: string,
  role: "command" | "queue" = "command",
  extra: RedisOptions = {},
): Redis {
  const redis = new Redis(url, {
    lazyConnect: false,
    enableReadyCheck: true,
    maxRetriesPerRequest: role === "queue" ? null : 1,
    // Command connections sit on request paths: a command waits at most this long
    // (also while reconnecting), then fails so the caller can answer 503.
    // Auto-pipelining sends the commands of concurrent requests issued in one tick as one
    // write: at a few thousand requests/s, per-command socket writes were ~15% of the gateway's CPU.
    ...(role === "command" ? { commandTimeout: 1500, enableAutoPipelining: true } : {}),
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 6), 3000),
    // A replica promoted or a server still loading: reconnect instead of failing every command.
    reconnectOnError: (error) => /READONLY|LOADING/.test(error.message),
    ...extra,
  });
  // Errors surface through the failed commands; an unhandled 'error' event would crash the process.
  redis.on("error", () => undefined);
  return redis;
}
