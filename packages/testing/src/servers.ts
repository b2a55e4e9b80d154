import net from "node:net";

/** Where the test PostgreSQL and Redis are; decided once per run by the global setup. */
export interface TestServers {
  postgresUrl: string;
  redisUrl: string;
}

/** True when something accepts TCP connections on host:port within `timeoutMs`. */
export function isListening(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * A local server answering on 127.0.0.1:port. TEST_LOCAL_SERVERS=ignore hides them, as on a
 * machine that has none: the container test proves the testcontainers path that way.
 */
async function localServer(port: number): Promise<boolean> {
  return process.env.TEST_LOCAL_SERVERS !== "ignore" && isListening("127.0.0.1", port);
}

/**
 * DATABASE_URL / REDIS_URL when set; else the local servers when they answer;
 * else testcontainers (needs a Docker engine), with the official images unless
 * TEST_POSTGRES_IMAGE / TEST_REDIS_IMAGE name others (the container test's local stand-ins).
 */
export async function locateServers(): Promise<{ servers: TestServers; stop: () => Promise<void> }> {
  const stops: Array<() => Promise<unknown>> = [];
  let postgresUrl = process.env.DATABASE_URL;
  let redisUrl = process.env.REDIS_URL;
  if (!postgresUrl) {
    if (await localServer(5432)) postgresUrl = "postgresql://postgres@127.0.0.1:5432/postgres";
    else {
      const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
      const image = process.env.TEST_POSTGRES_IMAGE ?? "postgres:16-alpine";
      const container = await new PostgreSqlContainer(image).start();
      postgresUrl = container.getConnectionUri();
      stops.push(() => container.stop());
    }
  }
  if (!redisUrl) {
    if (await localServer(6379)) redisUrl = "redis://127.0.0.1:6379";
    else {
      const { RedisContainer } = await import("@testcontainers/redis");
      const container = await new RedisContainer(process.env.TEST_REDIS_IMAGE ?? "redis:7-alpine").start();
      redisUrl = container.getConnectionUrl();
      stops.push(() => container.stop());
    }
  }
  return {
    servers: { postgresUrl, redisUrl },
    stop: async () => {
      for (const stop of stops) await stop();
    },
  };
}

/** The same server URL with another database name. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
