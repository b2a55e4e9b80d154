import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { waitForFreshWindow } from "./fixtures/redis-clock";
import { createPacer } from "./pacer";

describe("pacer (real Redis)", () => {
  let world: TestWorld;
  let redis: Redis;
  beforeAll(async () => {
    world = await createTestWorld();
    redis = createRedis(world.redisUrl, "command");
  });
  afterAll(async () => {
    redis.disconnect();
    await world.destroy();
  });

  it("books the rest of the current second, then whole seconds, each turn told when its second starts", async () => {
    await waitForFreshWindow(redis);
    const pacer = createPacer(redis, world.redisPrefix);
    const turns = await pacer.reserve("acc_a", 250, 100);
    expect(turns.map((turn) => turn.count)).toEqual([100, 100, 50]);
    expect(turns[0]!.waitMs).toBe(0);
    // The next second starts within 700–1000 ms (the test began early in this one).
    expect(turns[1]!.waitMs).toBeGreaterThan(600);
    expect(turns[1]!.waitMs).toBeLessThanOrEqual(1000);
    expect(turns[2]!.waitMs - turns[1]!.waitMs).toBe(1000);
  });

  it("shares one book between callers on other connections, and keeps keys apart", async () => {
    await waitForFreshWindow(redis);
    const other = createRedis(world.redisUrl, "command");
    try {
      const [a, b] = [createPacer(redis, world.redisPrefix), createPacer(other, world.redisPrefix)];
      expect(await a.reserve("acc_b", 80, 100)).toMatchObject([{ count: 80, waitMs: 0 }]);
      // What is left of this second (20) goes now; the rest waits for the next second.
      const second = await b.reserve("acc_b", 50, 100);
      expect(second.map((turn) => turn.count)).toEqual([20, 30]);
      expect(second[0]!.waitMs).toBe(0);
      expect(second[1]!.waitMs).toBeGreaterThan(600);
      expect(await a.reserve("acc_c", 10, 100)).toMatchObject([{ count: 10, waitMs: 0 }]);
    } finally {
      other.disconnect();
    }
  });

  it("never books more than the rate in one second, however the reservations come", async () => {
    const pacer = createPacer(redis, world.redisPrefix);
    const perSecond = new Map<number, number>();
    const sizes = [3, 7, 1, 12, 5, 9, 2, 4, 8, 6];
    for (const size of sizes) {
      for (const turn of await pacer.reserve("acc_d", size, 10)) {
        const second = Math.floor(turn.atMs / 1000);
        perSecond.set(second, (perSecond.get(second) ?? 0) + turn.count);
      }
    }
    expect([...perSecond.values()].reduce((a, b) => a + b, 0)).toBe(57);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(10);
  });

  it("takes now only what is left of the current second, and books nothing ahead", async () => {
    await waitForFreshWindow(redis);
    const pacer = createPacer(redis, world.redisPrefix);
    const first = await pacer.takeNow("acc_e", 3, 5);
    expect(first.taken).toBe(3);
    expect(first.secondEndMs % 1000).toBe(0);
    expect(await pacer.takeNow("acc_e", 3, 5)).toEqual({ taken: 2, secondEndMs: first.secondEndMs });
    expect((await pacer.takeNow("acc_e", 1, 5)).taken).toBe(0);
    // Nothing was booked into the next second: a reservation still finds it whole.
    const turns = await pacer.reserve("acc_e", 5, 5);
    expect(turns).toMatchObject([{ count: 5 }]);
    expect(turns[0]!.waitMs).toBeGreaterThan(0);
  });

  it("takes nothing while later seconds are booked: they are other messages' turns", async () => {
    await waitForFreshWindow(redis);
    const pacer = createPacer(redis, world.redisPrefix);
    expect((await pacer.reserve("acc_f", 15, 10)).map((turn) => turn.count)).toEqual([10, 5]);
    expect((await pacer.takeNow("acc_f", 1, 10)).taken).toBe(0);
    // Shares the book with reserve: what it takes, a reservation does not get.
    expect((await pacer.takeNow("acc_g", 4, 10)).taken).toBe(4);
    expect((await pacer.reserve("acc_g", 8, 10)).map((turn) => turn.count)).toEqual([6, 2]);
  });
});
