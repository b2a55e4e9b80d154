import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { nextTransition } from "./breaker";
import { CarrierHealthStore, listReportedCarriers, readCarrierHealth } from "./store";

describe("CarrierHealthStore (real Redis)", () => {
  let world: TestWorld;
  let redis: Redis;
  const settings = { windowMs: 1000, minSubmits: 4, failurePercent: 50, openMs: 300, probes: 2 };

  beforeAll(async () => {
    world = await createTestWorld();
    redis = createRedis(world.redisUrl, "command");
  });
  afterAll(async () => {
    redis.disconnect();
    await world.destroy();
  });

  it("sums every replica's counts over the window and forgets what left it", async () => {
    const store = new CarrierHealthStore(redis, { prefix: world.redisPrefix, windowMs: 1000 });
    await store.sync(
      "a",
      { ok: 3, failed: 1 },
      { instance: "one", outstanding: 2, window: 10, bound: 1, binds: 1 },
    );
    const both = await store.sync(
      "a",
      { ok: 1, failed: 5 },
      { instance: "two", outstanding: 4, window: 20, bound: 2, binds: 2 },
    );
    expect(both.record).toMatchObject({ submits: 10, failures: 6 });
    expect(both.errorRate).toBeCloseTo(0.6);
    expect(both).toMatchObject({ outstanding: 6, window: 30, bound: 3, binds: 3 });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await store.sync("a", { ok: 0, failed: 0 })).record.submits).toBe(0);
  });

  it("applies a transition once: the replica that computed it on an older record is refused", async () => {
    const store = new CarrierHealthStore(redis, { prefix: world.redisPrefix, windowMs: 1000 });
    const report = await store.sync("b", { ok: 0, failed: 4 });
    const opening = nextTransition(report.record, report.now, settings)!;
    expect(opening.state).toBe("open");
    expect(await store.transition("b", report.record, opening)).toBe(true);
    expect(await store.transition("b", report.record, opening)).toBe(false);
    const open = await store.sync("b", { ok: 0, failed: 0 });
    expect(open.record).toMatchObject({ state: "open", version: 1, trips: 1 });
  });

  it("hands out only the half-open state's probe permits, and closes afresh on their success", async () => {
    const store = new CarrierHealthStore(redis, { prefix: world.redisPrefix, windowMs: 1000 });
    let report = await store.sync("c", { ok: 0, failed: 4 });
    await store.transition("c", report.record, nextTransition(report.record, report.now, settings)!);
    report = await store.sync("c", { ok: 0, failed: 0 });
    await store.transition("c", report.record, nextTransition(report.record, report.now + 300, settings)!);
    report = await store.sync("c", { ok: 0, failed: 0 });
    expect(report.record.state).toBe("half_open");
    const version = report.record.version;
    const permits = await Promise.all([1, 2, 3].map(() => store.takeProbe("c", version, 2)));
    expect(permits.filter(Boolean)).toHaveLength(2);
    // A probe that sent nothing gives its permit back, once: another submit probes in its place.
    await store.returnProbe("c", version);
    expect(await store.takeProbe("c", version, 2)).toBe(true);
    expect(await store.takeProbe("c", version, 2)).toBe(false);
    await store.probeVerdict("c", version, true);
    await store.probeVerdict("c", version, true);
    report = await store.sync("c", { ok: 0, failed: 0 });
    const closing = nextTransition(report.record, report.now, settings)!;
    expect(closing.state).toBe("closed");
    await store.transition("c", report.record, closing);
    report = await store.sync("c", { ok: 0, failed: 0 });
    // The failures that opened it are behind the new window start.
    expect(report.record).toMatchObject({ state: "closed", submits: 0, failures: 0 });
    // A verdict of the old half-open state changes nothing now, nor does a permit given back.
    await store.probeVerdict("c", version, false);
    await store.returnProbe("c", version);
    expect((await store.sync("c", { ok: 0, failed: 0 })).record).toMatchObject({
      probesFailed: 0,
      probesTaken: 0,
    });
  });

  it("is read by the CLI and the console without counting anything", async () => {
    const store = new CarrierHealthStore(redis, { prefix: world.redisPrefix, windowMs: 1000 });
    await store.sync(
      "d",
      { ok: 2, failed: 2 },
      { instance: "one", outstanding: 1, window: 10, bound: 1, binds: 1 },
    );
    const [d, missing] = await readCarrierHealth(redis, world.redisPrefix, ["d", "nope"]);
    expect(d).toMatchObject({ reported: true, record: { submits: 4, failures: 2 }, window: 10 });
    expect(missing).toMatchObject({ reported: false, record: { state: "closed", submits: 0 } });
    expect(await listReportedCarriers(redis, world.redisPrefix)).toEqual(
      expect.arrayContaining(["b", "c", "d"]),
    );
  });
});
