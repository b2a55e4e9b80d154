import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { createEndpointLeases, type Lease } from "./endpoint-leases";

describe("endpoint leases (real Redis)", () => {
  let world: TestWorld;
  let redis: Redis;
  let other: Redis;
  beforeAll(async () => {
    world = await createTestWorld();
    redis = createRedis(world.redisUrl);
    other = createRedis(world.redisUrl);
  });
  afterAll(async () => {
    redis.disconnect();
    other.disconnect();
    await world.destroy();
  });

  const leasesOn = (connection: Redis, cap: number, leaseMs = 10_000) =>
    createEndpointLeases(connection, { prefix: world.redisPrefix, cap, leaseMs });

  it("grants exactly the cap to many acquires asked at once, across two replicas", async () => {
    const [a, b] = [leasesOn(redis, 7), leasesOn(other, 7)];
    const asked = Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).acquire("acc_cap"));
    const granted = (await Promise.all(asked)).filter((lease): lease is Lease => lease !== null);
    expect(granted).toHaveLength(7);
    expect(await redis.zcard(`${world.redisPrefix}:webhook:inflight:acc_cap`)).toBe(7);
    expect(await a.acquire("acc_cap")).toBeNull();
    // Another endpoint has its own slots.
    expect(await a.acquire("acc_elsewhere")).not.toBeNull();
    await Promise.all(granted.map((lease) => lease.release()));
    expect(await redis.zcard(`${world.redisPrefix}:webhook:inflight:acc_cap`)).toBe(0);
  });

  it("frees a released slot for the acquires of the same turn", async () => {
    const leases = leasesOn(redis, 2);
    const held = await Promise.all([leases.acquire("acc_turn"), leases.acquire("acc_turn")]);
    expect(held.every((lease) => lease !== null)).toBe(true);
    const [, next] = await Promise.all([held[0]!.release(), leases.acquire("acc_turn")]);
    expect(next).not.toBeNull();
    expect(await leases.acquire("acc_turn")).toBeNull();
  });

  it("takes back the slots of a worker that died holding them once their lease runs out", async () => {
    const dead = leasesOn(redis, 3, 200);
    expect(await Promise.all([1, 2, 3].map(() => dead.acquire("acc_dead")))).not.toContain(null);
    const survivor = leasesOn(other, 3, 200);
    expect(await survivor.acquire("acc_dead")).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = await Promise.all([1, 2, 3, 4].map(() => survivor.acquire("acc_dead")));
    expect(after.filter((lease) => lease !== null)).toHaveLength(3);
  });
});
