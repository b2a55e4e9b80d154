import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
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
  const held = (accountId: string) => redis.zcard(`${world.redisPrefix}:webhook:{${accountId}}:inflight`);

  it("grants several slots in one call, never more than the cap across many jobs on two replicas", async () => {
    const [a, b] = [leasesOn(redis, 7), leasesOn(other, 7)];
    const asked = Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquire("acc_cap", 3));
    const granted = (await Promise.all(asked)).filter((lease): lease is Lease => lease !== null);
    expect(granted.reduce((sum, lease) => sum + lease.slots, 0)).toBe(7);
    expect(granted.every((lease) => lease.slots >= 1 && lease.slots <= 3)).toBe(true);
    expect(await held("acc_cap")).toBe(7);
    expect(await a.acquire("acc_cap", 1)).toBeNull();
    // Another endpoint has its own slots.
    expect((await a.acquire("acc_elsewhere", 50))?.slots).toBe(7);
    await Promise.all(granted.map((lease) => lease.release()));
    expect(await held("acc_cap")).toBe(0);
  });

  it("a released lease frees its slots for the next job", async () => {
    const leases = leasesOn(redis, 2);
    const first = await leases.acquire("acc_turn", 5);
    expect(first?.slots).toBe(2);
    expect(await leases.acquire("acc_turn", 1)).toBeNull();
    await first!.release();
    expect((await leases.acquire("acc_turn", 1))?.slots).toBe(1);
  });

  it("takes back the slots of a worker that died holding them once their lease runs out", async () => {
    const dead = leasesOn(redis, 3, 200);
    expect((await dead.acquire("acc_dead", 3))?.slots).toBe(3);
    const survivor = leasesOn(other, 3, 200);
    expect(await survivor.acquire("acc_dead", 1)).toBeNull();
    const after = await waitFor(() => survivor.acquire("acc_dead", 4), { what: "the dead worker's slots" });
    expect(after.slots).toBe(3);
  });

  it("a release names the jobs that waited, first come first, as many as the freed slots cover", async () => {
    const leases = leasesOn(redis, 4);
    const holder = await leases.acquire("acc_wake", 4);
    expect(await leases.acquire("acc_wake", 3, "job-b")).toBeNull();
    expect(await leases.acquire("acc_wake", 2, "job-c")).toBeNull();
    // A job coming back to a full endpoint waits once, in its first place.
    expect(await leases.acquire("acc_wake", 3, "job-b")).toBeNull();
    expect(await leases.acquire("acc_wake", 1, "job-d")).toBeNull();
    expect(await holder!.release()).toEqual(["job-b", "job-c"]);
    const next = await leases.acquire("acc_wake", 1);
    expect(await next!.release()).toEqual(["job-d"]);
    // Nobody waits any more.
    expect(await (await leases.acquire("acc_wake", 4))!.release()).toEqual([]);
  });

  it("a waiter that gets slots on its own leaves the queue, so a release wakes the jobs still waiting", async () => {
    const leases = leasesOn(redis, 1, 200);
    expect((await leases.acquire("acc_stale", 1))?.slots).toBe(1); // a worker that dies holding it
    expect(await leases.acquire("acc_stale", 1, "job-early")).toBeNull();
    expect(await leases.acquire("acc_stale", 1, "job-late")).toBeNull();
    // The dead worker's lease runs out; job-early's delay ends and it takes the slot unwoken.
    const early = await waitFor(() => leases.acquire("acc_stale", 1, "job-early"), {
      what: "the expired slot",
    });
    expect(await early.release()).toEqual(["job-late"]);
  });
});
