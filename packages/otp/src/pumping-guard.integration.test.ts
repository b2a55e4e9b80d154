import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { createPumpingGuard } from "./pumping-guard";

describe("OTP pumping guard (real Redis)", () => {
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

  const guardOf = (name: string, minSends = 4) =>
    createPumpingGuard(redis, {
      prefix: `${world.redisPrefix}:${name}`,
      minSends,
      minVerifiedPercent: 50,
      prefixDigits: 6,
    });

  it("pauses a range with many sends and few verified, for that account only; other ranges go on", async () => {
    const guard = guardOf("pause");
    for (let i = 0; i < 4; i++) expect((await guard.take("acc_a", `+44791112340${i}`)).allowed).toBe(true);
    // Four sent, none verified: the fifth to +447911… is refused, and says why.
    expect(await guard.take("acc_a", "+447911123409")).toEqual({
      allowed: false,
      destinationPrefix: "+447911",
      sends: 4,
      verified: 0,
    });
    expect((await guard.take("acc_a", "+447912123409")).allowed).toBe(true);
    expect((await guard.take("acc_b", "+447911123409")).allowed).toBe(true);
  });

  it("lets the range through again once enough of its codes are verified", async () => {
    const guard = guardOf("verified");
    for (let i = 0; i < 4; i++) await guard.take("acc_a", `+1415555010${i}`);
    expect((await guard.take("acc_a", "+14155550109")).allowed).toBe(false);
    await guard.verified("acc_a", "+14155550100");
    expect((await guard.take("acc_a", "+14155550109")).allowed).toBe(false);
    await guard.verified("acc_a", "+14155550101");
    // 2 of 4 verified: 50 %, enough.
    expect((await guard.take("acc_a", "+14155550109")).allowed).toBe(true);
  });

  it("does not count a send handed back by release (an OTP that was not accepted after all)", async () => {
    const guard = guardOf("release");
    for (let i = 0; i < 3; i++) await guard.take("acc_a", `+3361234567${i}`);
    const fourth = await guard.take("acc_a", "+33612345679");
    if (!fourth.allowed) throw new Error("the fourth send was refused");
    await guard.release("acc_a", "+33612345679", fourth.token);
    expect((await guard.take("acc_a", "+33612345678")).allowed).toBe(true);
    expect((await guard.take("acc_a", "+33612345677")).allowed).toBe(false);
  });

  it("never refuses when turned off (minSends 0)", async () => {
    const guard = guardOf("off", 0);
    for (let i = 0; i < 20; i++) expect((await guard.take("acc_a", "+4915112345678")).allowed).toBe(true);
  });
});
