// @sms/testing is not a dependency of this package (it would be a cycle in spirit): reach its source.
import { startRedisCluster, type TestRedisCluster } from "@sms/testing";
import { createRedis, deleteKeys, scanKeys, type Redis } from "./index";

describe("createRedis on a Redis Cluster (three local masters)", () => {
  let cluster: TestRedisCluster;
  let redis: Redis;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    redis = createRedis(cluster.url, "command");
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  it("routes keys of every slot to their master, and scans and deletes across all masters", async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `it:${i}`);
    await Promise.all(keys.map((key, i) => redis.set(key, String(i))));
    expect(await Promise.all(keys.map((key) => redis.get(key)))).toEqual(keys.map((_, i) => String(i)));
    // The keys really are spread: every master holds some.
    const perMaster = await Promise.all(
      cluster.ports.map(async (port) => {
        const node = createRedis(`redis://127.0.0.1:${port}`);
        try {
          return await node.dbsize();
        } finally {
          node.disconnect();
        }
      }),
    );
    expect(perMaster.every((n) => n > 0)).toBe(true);
    const seen: string[] = [];
    for await (const batch of scanKeys(redis, "it:*")) seen.push(...batch);
    expect(seen.sort()).toEqual([...keys].sort());
    expect(await deleteKeys(redis, "it:*")).toBe(keys.length);
    expect(await redis.exists(...keys.slice(0, 1))).toBe(0);
  });

  it("runs a script over several keys that share a hash tag, and refuses keys of different slots", async () => {
    const script = "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]); return 1";
    expect(await redis.eval(script, 2, "{acc_1}:a", "{acc_1}:b", "x")).toBe(1);
    await expect(redis.eval(script, 2, "acc_1:a", "acc_2:b", "x")).rejects.toThrow(/CROSSSLOT|same slot/);
  });
});
