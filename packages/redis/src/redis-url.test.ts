import { parseRedisUrl } from "./redis-url";

describe("parseRedisUrl", () => {
  it("keeps redis:// and rediss:// URLs for ioredis to read", () => {
    expect(parseRedisUrl("redis://127.0.0.1:6379/2")).toEqual({
      mode: "standalone",
      url: "redis://127.0.0.1:6379/2",
    });
    expect(parseRedisUrl("rediss://:pw@cache.internal:6380")).toMatchObject({ mode: "standalone" });
  });

  it("reads the seed nodes, credentials and TLS of a cluster URL", () => {
    expect(parseRedisUrl("redis-cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002/")).toEqual({
      mode: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
        { host: "::1", port: 7002 },
      ],
      tls: false,
    });
    expect(parseRedisUrl("rediss-cluster://app:p%40ss@redis-0.redis:6379")).toEqual({
      mode: "cluster",
      nodes: [{ host: "redis-0.redis", port: 6379 }],
      username: "app",
      password: "p@ss",
      tls: true,
    });
  });

  it.each([
    ["http://127.0.0.1:6379", /must start with redis:\/\//],
    ["127.0.0.1:6379", /must start with redis:\/\//],
    ["redis-cluster://", /host:port/],
    ["redis-cluster://10.0.0.1", /host:port/],
    ["redis-cluster://10.0.0.1:70000", /host:port/],
    ["redis-cluster://10.0.0.1:7000,,10.0.0.2:7001", /host:port/],
    ["redis-cluster://10.0.0.1:7000/1", /only database 0/],
  ])("refuses %s", (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it("never repeats the password of a refused URL", () => {
    expect(() => parseRedisUrl("redis-cluster://app:hunter2@10.0.0.1")).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("hunter2") }),
    );
  });
});
