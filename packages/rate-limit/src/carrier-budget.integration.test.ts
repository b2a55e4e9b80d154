import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { createCarrierBudget, highReserve, type SubmitClass } from "./carrier-budget";
import { redisTime, waitForFreshWindow } from "./fixtures/redis-clock";

describe("carrier budget (real Redis)", () => {
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

  async function allowedOf(takes: Array<() => Promise<{ allowed: boolean }>>): Promise<number> {
    let allowed = 0;
    for (const take of takes) if ((await take()).allowed) allowed++;
    return allowed;
  }

  it("gives a campaign the carrier's whole second while no high-class submit comes", async () => {
    const budget = createCarrierBudget(redis, { prefix: world.redisPrefix, highReservePercent: 20 });
    await waitForFreshWindow(redis);
    const takes = Array.from({ length: 12 }, () => () => budget.take("car_a", 10, "bulk"));
    expect(await allowedOf(takes)).toBe(10);
  });

  it("keeps a share of the second for high-class submits once they come, and lets them take all of it", async () => {
    const budget = createCarrierBudget(redis, { prefix: world.redisPrefix, highReservePercent: 20 });
    await waitForFreshWindow(redis);
    expect((await budget.take("car_b", 10, "high")).allowed).toBe(true);
    const take = (cls: SubmitClass) => () => budget.take("car_b", 10, cls);
    // 1 high taken; normal and bulk stop at 10 - 2.
    expect(await allowedOf([...Array(5).fill(take("normal")), ...Array(5).fill(take("bulk"))])).toBe(7);
    expect(await allowedOf(Array(5).fill(take("high")))).toBe(2);
    const decision = await budget.take("car_b", 10, "high");
    expect(decision).toMatchObject({ allowed: false });
    const [now] = await redisTime(redis);
    expect(decision.resetEpochSeconds).toBe(now + 1);
  });

  it("decides the takes of one event-loop turn together, in order, as one after another", async () => {
    const budget = createCarrierBudget(redis, { prefix: world.redisPrefix, highReservePercent: 20 });
    await waitForFreshWindow(redis);
    const classes: SubmitClass[] = [
      "normal",
      "high",
      ...Array<SubmitClass>(9).fill("bulk"),
      "high",
      "high",
      "high",
    ];
    const decisions = await Promise.all(classes.map((cls) => budget.take("car_d", 10, cls)));
    // normal before any high: room 10; then high seen: normal and bulk stop at 8; high goes to 10.
    expect(decisions.map((d) => (d.allowed ? 1 : 0))).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0]);
    expect(new Set(decisions.map((d) => d.resetEpochSeconds)).size).toBe(1);
  });

  it("keeps the share two seconds after the last high-class submit, then gives it back", async () => {
    const budget = createCarrierBudget(redis, { prefix: world.redisPrefix, highReservePercent: 50 });
    await waitForFreshWindow(redis);
    await budget.take("car_c", 4, "high");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await waitForFreshWindow(redis);
    expect(await allowedOf(Array(4).fill(() => budget.take("car_c", 4, "normal")))).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await waitForFreshWindow(redis);
    expect(await allowedOf(Array(4).fill(() => budget.take("car_c", 4, "normal")))).toBe(4);
  });

  it.each([
    [1, 20, 0],
    [2, 20, 1],
    [10, 20, 2],
    [100, 20, 20],
    [5, 90, 4],
    [100, 0, 0],
  ])("keeps %i a second at %i %% as %i", (perSecond, percent, reserve) => {
    expect(highReserve(perSecond, percent)).toBe(reserve);
  });
});
