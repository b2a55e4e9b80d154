import { CarrierHealthStore, nextTransition } from "@sms/carrier-health";
import { createLogger } from "@sms/logger";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { CarrierHealth } from "./carrier-health";

describe("CarrierHealth's probes (real Redis)", () => {
  let world: TestWorld;
  let redis: Redis;
  // openMs long enough that no permit comes back by the half-open state timing out during the test.
  const settings = { windowMs: 1000, minSubmits: 4, failurePercent: 50, openMs: 60_000, probes: 1 };

  beforeAll(async () => {
    world = await createTestWorld();
    redis = createRedis(world.redisUrl, "command");
  });
  afterAll(async () => {
    redis.disconnect();
    await world.destroy();
  });

  /** A carrier's health, its breaker moved to half open by the store's own transitions. */
  async function halfOpen(carrierId: string): Promise<CarrierHealth> {
    const store = new CarrierHealthStore(redis, { prefix: world.redisPrefix, windowMs: settings.windowMs });
    let report = await store.sync(carrierId, { ok: 0, failed: 4 });
    await store.transition(carrierId, report.record, nextTransition(report.record, report.now, settings)!);
    report = await store.sync(carrierId, { ok: 0, failed: 0 });
    const probing = nextTransition(report.record, report.now + settings.openMs, settings)!;
    expect(probing.state).toBe("half_open");
    await store.transition(carrierId, report.record, probing);
    const health = new CarrierHealth({
      store,
      settings,
      logger: createLogger("carrier-health-test", "error"),
      instance: "test",
      syncMs: 60_000,
      backoffMs: 100,
      binds: () => ({ [carrierId]: { bound: 1, total: 1, outstanding: 0, window: 10 } }),
    });
    await health.syncAll();
    expect(health.state(carrierId)).toBe("half_open");
    return health;
  }

  const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

  it("gives back the permit of a probe that sent nothing, so the next submit probes at once", async () => {
    const health = await halfOpen("p1");
    const first = await health.admit("p1");
    expect(first?.probe).not.toBeNull();
    expect(await health.admit("p1")).toBeNull(); // one permit: taken
    health.release(first!); // its turn ended before it was written
    await settled();
    const second = await health.admit("p1");
    expect(second?.probe).toBe(first!.probe);
    // Released twice, it is given back once.
    health.release(first!);
    await settled();
    expect(await health.admit("p1")).toBeNull();
  });

  it("keeps the permit of a probe that was written: its verdict decides", async () => {
    const health = await halfOpen("p2");
    const probe = await health.admit("p2");
    expect(probe?.probe).not.toBeNull();
    health.record(probe!, "unanswered");
    health.release(probe!);
    await settled();
    expect(await health.admit("p2")).toBeNull();
  });

  it("takes nothing back for a submit admitted while closed", async () => {
    const health = await halfOpen("p3");
    const probe = (await health.admit("p3"))!;
    const closedAdmission = { carrierId: "p3", probe: null };
    health.release(closedAdmission);
    await settled();
    expect(await health.admit("p3")).toBeNull();
    health.release(probe);
    await settled();
    expect((await health.admit("p3"))?.probe).toBe(probe.probe);
  });
});
